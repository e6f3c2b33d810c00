// The library's side of a program's error handling and scratch memory:
//   1. A launcher refuses a bad argument with cudaErrorInvalidValue before any launch: nothing
//      runs, the output stays as it was, and the runtime's last-error slot stays clean.
//   2. CUB's two-phase temp storage (inclusive_scan): ask for the bytes, allocate, call again; too
//      few bytes are refused the same way.
//   3. A kernel of your own launched with <<<...>>> reports through tilecraft::last_launch_error();
//      TILECRAFT_THROW_IF_ERROR turns a failed call into a tilecraft::CudaError carrying its code.
//   4. The GEMM's scratch memory (a product with K split across blocks needs its partial sums
//      somewhere) comes from a stream-ordered pool tilecraft keeps per device, so the next call
//      finds it mapped; tilecraft::release_workspace() hands it back when a phase of GEMMs is over.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <tilecraft/device/gemm.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/transpose.cuh>
#include <tilecraft/device/workspace.cuh>
#include <tilecraft/util/error.cuh>
#include <tilecraft/util/functional.cuh>

#include "example_util.cuh"

// The float GEMM's kernels come compiled once, from the library's instance unit (CMake:
// tilecraft_gemm_instances), instead of in this file.
TILECRAFT_GEMM_INSTANCE(extern, float);

__global__ void fill(float* p, int n, float v) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) p[i] = v;
}

int main() {
  if (!example::have_gpu("errors_and_workspace")) return 0;
  try {
    const int n = 64 * 64;
    std::vector<float> h(n);
    example::UniformFloats uniform(-1.0f, 1.0f, 11);
    for (auto& v : h) v = uniform();
    float* in = example::device_copy(h);
    float* out = nullptr;
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, n * sizeof(float)));
    TILECRAFT_THROW_IF_ERROR(cudaMemset(out, 0x7f, n * sizeof(float)));

    {  // 1. a refusal launches nothing
      // A 64 x 64 matrix whose leading dimension (63) is shorter than its rows.
      const cudaError_t refused = tilecraft::transpose(in, 63, out, 64, 64, 64);
      TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
      std::vector<float> got(n);
      TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
      std::vector<float> poison(n);
      std::memset(poison.data(), 0x7f, n * sizeof(float));
      const bool untouched = std::memcmp(got.data(), poison.data(), n * sizeof(float)) == 0;
      const bool ok = refused == cudaErrorInvalidValue && untouched && cudaPeekAtLastError() == cudaSuccess;
      std::printf("  %-62s %s\n", "1. a bad leading dimension: cudaErrorInvalidValue, nothing run",
                  example::verdict(ok));
    }

    {  // 2. two-phase temp storage
      std::size_t bytes = 0;
      TILECRAFT_THROW_IF_ERROR(tilecraft::inclusive_scan(nullptr, bytes, in, out, n, tilecraft::Sum{}));
      void* temp = nullptr;
      TILECRAFT_THROW_IF_ERROR(cudaMalloc(&temp, bytes));
      std::size_t too_few = bytes - 1;
      const cudaError_t short_temp = tilecraft::inclusive_scan(temp, too_few, in, out, n, tilecraft::Sum{});
      TILECRAFT_THROW_IF_ERROR(tilecraft::inclusive_scan(temp, bytes, in, out, n, tilecraft::Sum{}));
      std::vector<float> got(n);
      TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
      double running = 0.0, worst = 0.0;
      for (int i = 0; i < n; ++i) {
        running += h[i];
        worst = std::fmax(worst, std::fabs(got[i] - running));
      }
      const bool ok = short_temp == cudaErrorInvalidValue && worst < 1e-3;
      std::printf("  %-62s %s\n", "2. temp bytes asked, too few refused, the scan run", example::verdict(ok));
      TILECRAFT_THROW_IF_ERROR(cudaFree(temp));
    }

    {                                   // 3. a user kernel's launch error, and an exception
      fill<<<1, 2048>>>(out, n, 0.0f);  // more threads than a block may have: not launched
      const cudaError_t launch = tilecraft::last_launch_error();
      cudaError_t caught = cudaSuccess;
      try {
        TILECRAFT_THROW_IF_ERROR(tilecraft::transpose(in, 63, out, 64, 64, 64));
      } catch (const tilecraft::CudaError& error) {
        caught = error.code();
        std::printf("  (caught: %s)\n", error.what());
      }
      // The code of a refused configuration: the runtime's documentation names
      // cudaErrorInvalidConfiguration, and CUDA 13 with driver 580 answers 2048 threads with
      // cudaErrorInvalidValue. Either way it is reported once, then cleared.
      const cudaError_t after = cudaPeekAtLastError();
      std::printf("  (launch of 2048 threads: %s; slot afterwards: %s)\n", cudaGetErrorName(launch),
                  cudaGetErrorName(after));
      const bool refused = launch == cudaErrorInvalidConfiguration || launch == cudaErrorInvalidValue;
      const bool ok = refused && caught == cudaErrorInvalidValue && after == cudaSuccess;
      std::printf("  %-62s %s\n", "3. last_launch_error(), then a CudaError with its code", example::verdict(ok));
    }

    {                                        // 4. the GEMM's workspace, kept between calls, then released
      const int m = 128, nn = 96, k = 8192;  // few C tiles and a long K: K is split across blocks
      std::vector<float> ha(static_cast<std::size_t>(m) * k), hb(static_cast<std::size_t>(k) * nn);
      for (auto& v : ha) v = uniform();
      for (auto& v : hb) v = uniform();
      float* a = example::device_copy(ha);
      float* b = example::device_copy(hb);
      float* c = nullptr;
      TILECRAFT_THROW_IF_ERROR(cudaMalloc(&c, static_cast<std::size_t>(m) * nn * sizeof(float)));
      for (int call = 0; call < 2; ++call) {  // the second call finds the workspace mapped
        TILECRAFT_THROW_IF_ERROR(tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none,
                                                 m, nn, k, 1.0f, a, k, b, nn, 0.0f, c, nn));
      }
      std::vector<float> hc(static_cast<std::size_t>(m) * nn);
      TILECRAFT_THROW_IF_ERROR(cudaMemcpy(hc.data(), c, hc.size() * sizeof(float), cudaMemcpyDeviceToHost));
      double worst = 0.0;
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < nn; ++j) {
          double ref = 0.0;
          for (int kk = 0; kk < k; ++kk) {
            ref += static_cast<double>(ha[static_cast<std::size_t>(i) * k + kk]) *
                   hb[static_cast<std::size_t>(kk) * nn + j];
          }
          worst = std::fmax(worst, std::fabs(hc[static_cast<std::size_t>(i) * nn + j] - ref));
        }
      }
      std::size_t free_before = 0, free_after = 0, total = 0;
      TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());  // the work that used the workspace is done
      TILECRAFT_THROW_IF_ERROR(cudaMemGetInfo(&free_before, &total));
      const cudaError_t released = tilecraft::release_workspace();
      TILECRAFT_THROW_IF_ERROR(cudaMemGetInfo(&free_after, &total));
      std::printf("  (device memory free: %.1f MiB before release_workspace(), %.1f MiB after)\n",
                  static_cast<double>(free_before) / (1 << 20), static_cast<double>(free_after) / (1 << 20));
      // FP32 sums of 8192 products of values in [-1, 1): errors of a few 1e-4 at most.
      const bool ok = worst < 1e-2 && released == cudaSuccess;
      std::printf("  %-62s %s\n", "4. a split-K GEMM from the workspace pool, then released", example::verdict(ok));
      TILECRAFT_THROW_IF_ERROR(cudaFree(a));
      TILECRAFT_THROW_IF_ERROR(cudaFree(b));
      TILECRAFT_THROW_IF_ERROR(cudaFree(c));
    }
    TILECRAFT_THROW_IF_ERROR(cudaFree(in));
    TILECRAFT_THROW_IF_ERROR(cudaFree(out));
  } catch (const tilecraft::CudaError& error) {
    std::printf("  WRONG: %s\n", error.what());
    return 1;
  }
  return example::exit_status();
}
