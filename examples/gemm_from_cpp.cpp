// tilecraft::gemm from a plain C++ file (this one is compiled by the host compiler, g++), as a
// cuBLAS call would be: under a host compiler gemm() with the default policy calls launchers
// that are only declared, and one CUDA unit of the program defines them, kernels and all:
//
//   // gemm_instances.cu, compiled by nvcc for the program's GPUs
//   #include <tilecraft/device/gemm.cuh>
//   TILECRAFT_GEMM_INSTANCE(, float);                             // gemm() on floats
//   TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32x3);  // gemm<GemmMath::tf32x3>()
//
// Here that unit is the project's own (CMake: tilecraft_gemm_instances, which the tests and the
// benchmarks link too). The program multiplies two random 1000 x 1500 and 1500 x 700 matrices in
// FP32 and in TF32x3 (FP32's accuracy from the tensor cores), and checks both against a
// double-precision product on the host. (gemm<Policy> and gemm_epilogue compile their kernels
// where they are named: a .cu file's.)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_runtime_api.h>

#include <tilecraft/device/gemm.cuh>
#include <tilecraft/util/error.cuh>

#include "example_util.cuh"

namespace {

float* to_device(const std::vector<float>& h) {
  void* d = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return static_cast<float*>(d);
}

}  // namespace

int main() {
  if (!example::have_gpu("gemm_from_cpp")) return 0;
  try {
    const int m = 1000, n = 700, k = 1500;  // row-major A (m x k), B (k x n), C (m x n)
    std::vector<float> ha(static_cast<std::size_t>(m) * k), hb(static_cast<std::size_t>(k) * n);
    example::UniformFloats uniform(-1.0f, 1.0f, 2026);
    for (auto& v : ha) v = uniform();
    for (auto& v : hb) v = uniform();
    // The product in double, and each element's sum of |a b| (the scale of its rounding).
    std::vector<double> exact(static_cast<std::size_t>(m) * n), scale(exact.size());
    for (int i = 0; i < m; ++i) {
      for (int p = 0; p < k; ++p) {
        const double a = ha[static_cast<std::size_t>(i) * k + p];
        for (int j = 0; j < n; ++j) {
          const double ab = a * hb[static_cast<std::size_t>(p) * n + j];
          exact[static_cast<std::size_t>(i) * n + j] += ab;
          scale[static_cast<std::size_t>(i) * n + j] += std::fabs(ab);
        }
      }
    }
    float* a = to_device(ha);
    float* b = to_device(hb);
    float* c = nullptr;
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(reinterpret_cast<void**>(&c), exact.size() * sizeof(float)));
    std::vector<float> hc(exact.size());
    using tilecraft::Op;
    using tilecraft::Order;
    // Each math's bound relative to sum |a b| (gemm()'s documentation): FP32 (K + 2) 2^-24,
    // TF32x3 2^-20 + (3 K + 2) 2^-24.
    const double fp32_bound = (k + 2) * std::ldexp(1.0, -24);
    const double tf32x3_bound = std::ldexp(1.0, -20) + (3.0 * k + 2) * std::ldexp(1.0, -24);
    for (int math = 0; math < 2; ++math) {
      TILECRAFT_THROW_IF_ERROR(cudaMemset(c, 0xff, hc.size() * sizeof(float)));  // NaN: beta 0 never reads C
      if (math == 0) {
        TILECRAFT_THROW_IF_ERROR(
            tilecraft::gemm(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n));
      } else {
        TILECRAFT_THROW_IF_ERROR(tilecraft::gemm<tilecraft::GemmMath::tf32x3>(Order::row_major, Op::none, Op::none, m,
                                                                              n, k, 1.0f, a, k, b, n, 0.0f, c, n));
      }
      TILECRAFT_THROW_IF_ERROR(cudaMemcpy(hc.data(), c, hc.size() * sizeof(float), cudaMemcpyDeviceToHost));
      double worst = 0.0;  // the largest error relative to its element's scale (NaN: never below)
      bool within = true;
      const double bound = math == 0 ? fp32_bound : tf32x3_bound;
      for (std::size_t i = 0; i < hc.size(); ++i) {
        const double relative = std::fabs(static_cast<double>(hc[i]) - exact[i]) / scale[i];
        within = within && relative <= bound;
        if (relative > worst || std::isnan(relative)) worst = relative;
      }
      std::printf("  %-44s worst error %.1e of sum |a b| (bound %.1e)  %s\n",
                  math == 0 ? "gemm(), FP32 FMAs, from this .cpp file" : "gemm<GemmMath::tf32x3>(), tensor cores",
                  worst, bound, example::verdict(within));
    }
    TILECRAFT_THROW_IF_ERROR(cudaFree(a));
    TILECRAFT_THROW_IF_ERROR(cudaFree(b));
    TILECRAFT_THROW_IF_ERROR(cudaFree(c));
  } catch (const tilecraft::CudaError& e) {
    std::printf("gemm_from_cpp: %s\n", e.what());
    return 1;
  }
  return example::exit_status();
}
