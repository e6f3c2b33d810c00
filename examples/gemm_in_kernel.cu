// tiled_gemm inside your own kernel: a fully connected layer with its bias and ReLU fused into
// the GEMM, Y = relu(X W^T + bias). X holds a batch of M inputs (M x K, row-major), W the
// layer's N x K weights (row-major, the way PyTorch's nn.Linear stores them), Y is M x N.
// Each block computes one 64 x 64 tile of Y with tilecraft::tiled_gemm. The epilogue functor
// (BiasRelu, a GemmEpilogue) receives every finished accumulator with its coordinates and
// returns what is stored: bias added and negatives clamped in registers, so Y is written once
// and never read back, where a separate bias + ReLU kernel would read and write it again.
// W^T is never materialised: tilecraft::transposed(W) is the K x N column-major view of W's
// memory, and tiled_gemm takes either order. Any M, N, K: tiles that overhang an edge read
// zeros and store only what lies inside Y.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tilecraft/gemm/tiled_gemm.cuh>

#include "example_util.cuh"

namespace {

// 64 x 64 tiles of Y, 4 x 4 accumulators per thread, K steps of 8, 3 stages: 256 threads and
// 13 KiB of shared memory, so static __shared__ will do.
constexpr int tile = 64;
using Gemm = tilecraft::TiledGemm<tile, tile, tilecraft::RegBlock<4, 4>>;
static_assert(Gemm::threads == 256 && Gemm::smem_bytes <= 48 * 1024);

// The fused epilogue: y = max(acc + bias[col], 0). reads_c() is false: the old Y is not read
// (the functor gets 0 for it), so Y may start uninitialised.
struct BiasRelu {
  const float* bias;
  __host__ __device__ bool reads_c() const { return false; }
  __host__ __device__ float operator()(float acc, float, std::int64_t, std::int64_t col) const {
    return fmaxf(acc + bias[col], 0.0f);
  }
};
static_assert(tilecraft::GemmEpilogue<BiasRelu>);

__global__ void __launch_bounds__(Gemm::threads)
    linear_relu(tilecraft::MatrixRef<const float> x,                                // M x K
                tilecraft::MatrixRef<const float, tilecraft::Order::col_major> wt,  // K x N: W^T
                tilecraft::MatrixRef<float> y, BiasRelu epi) {                      // M x N
  __shared__ Gemm::TempStorage storage;  // every thread of the block calls tiled_gemm with it
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.y) * tile;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x) * tile;
  tilecraft::tiled_gemm<tile, tile, tilecraft::RegBlock<4, 4>>(storage, x, wt, y, m0, n0, epi);
}

}  // namespace

int main() {
  if (!example::have_gpu("gemm_in_kernel")) return 0;
  const std::int64_t m = 1000, n = 300, k = 515;  // batch, outputs, inputs: multiples of nothing useful
  std::vector<float> hx(static_cast<std::size_t>(m * k)), hw(static_cast<std::size_t>(n * k)),
      hbias(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<float>((i * 2654435761u) % 2000) / 1000.0f - 1.0f;
  for (std::size_t i = 0; i < hw.size(); ++i) hw[i] = static_cast<float>((i * 40503u) % 1000) / 1000.0f - 0.5f;
  for (std::size_t i = 0; i < hbias.size(); ++i) hbias[i] = static_cast<float>(i % 7) - 3.0f;
  float *x = nullptr, *w = nullptr, *bias = nullptr, *y = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&x, hx.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&w, hw.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&bias, hbias.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&y, static_cast<std::size_t>(m * n) * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(x, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(w, hw.data(), hw.size() * sizeof(float), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(bias, hbias.data(), hbias.size() * sizeof(float), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemset(y, 0xff, static_cast<std::size_t>(m * n) * sizeof(float)));  // NaN

  const tilecraft::MatrixRef<const float> x_ref{x, m, k, k};
  const tilecraft::MatrixRef<const float> w_ref{w, n, k, k};
  const tilecraft::MatrixRef<float> y_ref{y, m, n, n};
  const dim3 grid(static_cast<unsigned>((n + tile - 1) / tile), static_cast<unsigned>((m + tile - 1) / tile));
  auto launch = [&] {
    linear_relu<<<grid, Gemm::threads>>>(x_ref, tilecraft::transposed(w_ref), y_ref, BiasRelu{bias});
    TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  };
  launch();
  std::vector<float> got(static_cast<std::size_t>(m * n));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), y, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // Reference in double; the float error scales with the sum of the terms' magnitudes.
  double worst = 0;
  bool ok = true;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = hbias[static_cast<std::size_t>(j)], mag = std::fabs(sum);
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const double term = double(hx[static_cast<std::size_t>(i * k + kk)]) * hw[static_cast<std::size_t>(j * k + kk)];
        sum += term;
        mag += std::fabs(term);
      }
      const double err = std::fabs(got[static_cast<std::size_t>(i * n + j)] - std::fmax(sum, 0.0)) / mag;
      ok = ok && err < 1e-5;  // false for a NaN too: an element never written
      worst = std::fmax(worst, err);
    }
  }
  const double ms = example::time_ms(launch);
  std::printf("Y = relu(X W^T + bias), X %lld x %lld, W %lld x %lld, one 64 x 64 tile per block:\n",
              static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n),
              static_cast<long long>(k));
  char verdict[64];
  std::snprintf(verdict, sizeof verdict, "%s (worst relative error %.1e)", example::verdict(ok), worst);
  example::report_flops("tiled_gemm + fused bias/ReLU", ms, 2.0 * double(m) * double(n) * double(k), verdict);
  TILECRAFT_THROW_IF_ERROR(cudaFree(x));
  TILECRAFT_THROW_IF_ERROR(cudaFree(w));
  TILECRAFT_THROW_IF_ERROR(cudaFree(bias));
  TILECRAFT_THROW_IF_ERROR(cudaFree(y));
  return ok ? 0 : 1;
}
