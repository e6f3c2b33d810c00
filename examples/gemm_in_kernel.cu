// tiled_gemm inside your own kernel: a fully connected layer with its bias and GELU fused into
// the GEMM, Y = gelu(X W^T + bias), gelu(v) = v (1 + erf(v / sqrt 2)) / 2. X holds a batch of M inputs (M x K,
// row-major), W the layer's N x K weights (row-major, the way PyTorch's nn.Linear stores them), Y is M x N. Each block
// computes one 64 x 64 tile of Y with tilecraft::tiled_gemm. The epilogue functor (BiasGelu, a GemmEpilogue) receives
// every finished accumulator with its coordinates and returns what is stored: bias added and the activation applied in
// registers, so Y is written once and never read back, where a separate bias + GELU kernel would read and write it
// again. W^T is never materialised: tilecraft::transposed(W) is the K x N column-major view of W's memory, and
// tiled_gemm takes either order. Any M, N, K: tiles that overhang an edge read zeros and store only what lies inside Y.
// The same layer runs in float, in double, and in bfloat16 on the tensor cores: the element type
// is TiledGemm's T parameter (float by default). With __nv_bfloat16 (or __half) X and W, the
// math is GemmMath::mma16: m16n8k16 MMAs, every product exact, FP32 accumulators, and Y (and the
// epilogue) in float. The configuration is spelled once, in the storage's type: tiled_gemm takes
// it from there.
// Then the float layer one level down, with the warp-level SIMT MMA (WarpMma) of the same
// configuration driven by hand: one shared stage a K step, loaded with plain loads and stores,
// each thread's RM x RN register block multiplied by WarpMma, the epilogue applied by hand
// through its row() / col() maps. What tiled_gemm adds on top: the cp.async pipeline, the
// vector fills, the stage overlap, the epilogue plumbing.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>

#include <tilecraft/gemm/tiled_gemm.cuh>

#include "example_util.cuh"

namespace {

// 64 x 64 tiles of Y, 4 x 4 accumulators per thread, K steps of 8 (16 for bfloat16: the MMA's
// k), 3 stages: 256 threads and 13 KiB of shared memory for float, 18 KiB for bfloat16, 25 KiB
// for double, so static __shared__ will do.
constexpr int tile = 64;
template <class T>
using Gemm =
    tilecraft::TiledGemm<tile, tile, tilecraft::RegBlock<4, 4>, tilecraft::is_gemm_16bit_v<T> ? 16 : 8, 4, 3, T>;
static_assert(Gemm<float>::threads == 256 && Gemm<float>::smem_bytes <= 48 * 1024);
static_assert(Gemm<double>::threads == 256 && Gemm<double>::smem_bytes <= 48 * 1024);
static_assert(Gemm<__nv_bfloat16>::threads == 256 && Gemm<__nv_bfloat16>::smem_bytes <= 48 * 1024);
// Y's type: T, or float for bfloat16 inputs.
template <class T>
using Out = typename Gemm<T>::output_type;
static_assert(std::is_same_v<Out<__nv_bfloat16>, float>);

// The fused epilogue: y = gelu(acc + bias[col]) (the exact GELU, through erf). reads_c() is
// false: the old Y is not read (the functor gets 0 for it), so Y may start uninitialised.
template <class T>
struct BiasGelu {
  const T* bias;
  __host__ __device__ bool reads_c() const { return false; }
  __host__ __device__ T operator()(T acc, T, std::int64_t, std::int64_t col) const {
    const T v = acc + bias[col];
    if constexpr (std::is_same_v<T, float>) {
      return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    } else {
      return 0.5 * v * (1.0 + erf(v * 0.70710678118654752));
    }
  }
};
static_assert(tilecraft::GemmEpilogue<BiasGelu<float>> && tilecraft::GemmEpilogue<BiasGelu<double>, double>);

template <class T>
__global__ void __launch_bounds__(Gemm<T>::threads)
    linear_gelu(tilecraft::MatrixRef<const T> x,                                // M x K
                tilecraft::MatrixRef<const T, tilecraft::Order::col_major> wt,  // K x N: W^T
                tilecraft::MatrixRef<Out<T>> y, BiasGelu<Out<T>> epi) {         // M x N
  __shared__ typename Gemm<T>::TempStorage storage;  // every thread of the block calls tiled_gemm with it
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.y) * tile;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x) * tile;
  tilecraft::tiled_gemm(storage, x, wt, y, m0, n0, epi);
}

// The float layer on the warp level of the same configuration (see the file comment). X and W
// are both row-major with K contiguous: consecutive threads read consecutive k of one row, and
// store them K-major, as WarpMma reads its stage (stage.a(k, i) = X(m0 + i, k0 + k),
// stage.b(k, j) = W(n0 + j, k0 + k), zeros past the edges).
using Shape = Gemm<float>::shape;
using WarpLevel = tilecraft::WarpMma<Shape>;

__global__ void __launch_bounds__(Shape::threads)
    linear_gelu_warp_level(tilecraft::MatrixRef<const float> x, tilecraft::MatrixRef<const float> w,
                           tilecraft::MatrixRef<float> y, BiasGelu<float> epi) {
  __shared__ Shape::Stage stage;  // one stage: Shape::TileA a (TK x 64) and Shape::TileB b (TK x 64)
  const int t = static_cast<int>(threadIdx.x);
  const WarpLevel mma(t / 32, t % 32);
  WarpLevel::Accumulators acc = {};
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.y) * tile;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x) * tile;
  for (std::int64_t k0 = 0; k0 < x.cols; k0 += Shape::tile_k) {
    for (int e = t; e < Shape::tile_k * tile; e += Shape::threads) {
      const int i = e / Shape::tile_k, kk = e % Shape::tile_k;
      const std::int64_t gk = k0 + kk;
      stage.a(kk, i) = m0 + i < x.rows && gk < x.cols ? x(m0 + i, gk) : 0.0f;
      stage.b(kk, i) = n0 + i < w.rows && gk < w.cols ? w(n0 + i, gk) : 0.0f;
    }
    __syncthreads();           // the slices are in shared memory
    mma.multiply(stage, acc);  // TK steps of RM x RN FMAs, fragments by LDS.128
    __syncthreads();           // every warp is done with them before the next K step's stores
  }
  for (int i = 0; i < static_cast<int>(WarpLevel::rm); ++i) {
    for (int j = 0; j < static_cast<int>(WarpLevel::rn); ++j) {
      const std::int64_t r = m0 + mma.row(i), c = n0 + mma.col(j);
      if (r < y.rows && c < y.cols) y(r, c) = epi(acc[i][j], 0.0f, r, c);
    }
  }
}

// An input element: T's value of x (for bfloat16, rounded to its 8 bits of mantissa), and back
// as a double for the host reference.
template <class T>
T to_input(double x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(static_cast<float>(x));
  } else {
    return static_cast<T>(x);
  }
}
template <class T>
double from_input(T x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<double>(__bfloat162float(x));
  } else {
    return static_cast<double>(x);
  }
}

// Runs the layer on inputs of type T (float, double or bfloat16; Y and the bias in Out<T>),
// through tiled_gemm or (float, ByHand) linear_gelu_warp_level, checks it against a host
// reference and reports; true when correct.
template <class T, bool ByHand = false>
bool run_layer(std::int64_t m, std::int64_t n, std::int64_t k, const char* label) {
  using O = Out<T>;
  std::vector<T> hx(static_cast<std::size_t>(m * k)), hw(static_cast<std::size_t>(n * k));
  std::vector<O> hbias(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = to_input<T>(double((i * 2654435761u) % 2000) / 1000 - 1);
  for (std::size_t i = 0; i < hw.size(); ++i) hw[i] = to_input<T>(double((i * 40503u) % 1000) / 1000 - 0.5);
  for (std::size_t i = 0; i < hbias.size(); ++i) hbias[i] = static_cast<O>(i % 7) - O(3);
  T *x = nullptr, *w = nullptr;
  O *bias = nullptr, *y = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&x, hx.size() * sizeof(T)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&w, hw.size() * sizeof(T)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&bias, hbias.size() * sizeof(O)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&y, static_cast<std::size_t>(m * n) * sizeof(O)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(x, hx.data(), hx.size() * sizeof(T), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(w, hw.data(), hw.size() * sizeof(T), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(bias, hbias.data(), hbias.size() * sizeof(O), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemset(y, 0xff, static_cast<std::size_t>(m * n) * sizeof(O)));  // NaN

  const tilecraft::MatrixRef<const T> x_ref{x, m, k, k};
  const tilecraft::MatrixRef<const T> w_ref{w, n, k, k};
  const tilecraft::MatrixRef<O> y_ref{y, m, n, n};
  const dim3 grid(static_cast<unsigned>((n + tile - 1) / tile), static_cast<unsigned>((m + tile - 1) / tile));
  auto launch = [&] {
    if constexpr (ByHand) {
      static_assert(std::is_same_v<T, float>, "run_layer: the warp-level layer is float's");
      linear_gelu_warp_level<<<grid, Shape::threads>>>(x_ref, w_ref, y_ref, BiasGelu<O>{bias});
    } else {
      linear_gelu<T><<<grid, Gemm<T>::threads>>>(x_ref, tilecraft::transposed(w_ref), y_ref, BiasGelu<O>{bias});
    }
    TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  };
  launch();
  std::vector<O> got(static_cast<std::size_t>(m * n));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), y, got.size() * sizeof(O), cudaMemcpyDeviceToHost));

  // Reference in a wider type from the very inputs the GPU read; the error scales with the sum
  // of the terms' magnitudes, by about K unit roundoffs of the accumulators (float 2^-24, double
  // 2^-53; bfloat16 products are exact in float): 1e-5 and 1e-12 leave room.
  using Wide = std::conditional_t<std::is_same_v<O, float>, double, long double>;
  const double tolerance = std::is_same_v<O, float> ? 1e-5 : 1e-12;
  double worst = 0;
  bool ok = true;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      Wide sum = hbias[static_cast<std::size_t>(j)], mag = std::fabs(sum);
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const Wide term = Wide(from_input(hx[static_cast<std::size_t>(i * k + kk)])) *
                          Wide(from_input(hw[static_cast<std::size_t>(j * k + kk)]));
        sum += term;
        mag += std::fabs(term);
      }
      // GELU's slope is at most 1.13, and erf adds a few units of the output's last place.
      const Wide want = Wide(0.5) * sum * (Wide(1) + std::erf(sum / std::sqrt(Wide(2))));
      const double err = static_cast<double>(std::fabs(got[static_cast<std::size_t>(i * n + j)] - want) / mag);
      ok = ok && err < tolerance;  // false for a NaN too: an element never written
      worst = std::fmax(worst, err);
    }
  }
  const double ms = example::time_ms(launch);
  char verdict[64];
  std::snprintf(verdict, sizeof verdict, "%s (worst relative error %.1e)", example::verdict(ok), worst);
  example::report_flops(label, ms, 2.0 * double(m) * double(n) * double(k), verdict);
  TILECRAFT_THROW_IF_ERROR(cudaFree(x));
  TILECRAFT_THROW_IF_ERROR(cudaFree(w));
  TILECRAFT_THROW_IF_ERROR(cudaFree(bias));
  TILECRAFT_THROW_IF_ERROR(cudaFree(y));
  return ok;
}

}  // namespace

int main() {
  if (!example::have_gpu("gemm_in_kernel")) return 0;
  const std::int64_t m = 1000, n = 300, k = 515;  // batch, outputs, inputs: multiples of nothing useful
  std::printf("Y = gelu(X W^T + bias), X %lld x %lld, W %lld x %lld, one 64 x 64 tile per block:\n",
              static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n),
              static_cast<long long>(k));
  const bool ok_float = run_layer<float>(m, n, k, "tiled_gemm + fused bias/GELU, float");
  const bool ok_double = run_layer<double>(m, n, k, "tiled_gemm + fused bias/GELU, double");
  const bool ok_bf16 = run_layer<__nv_bfloat16>(m, n, k, "tiled_gemm + fused bias/GELU, bfloat16");
  const bool ok_hand = run_layer<float, true>(m, n, k, "WarpMma by hand, one stage, float");
  return ok_float && ok_double && ok_bf16 && ok_hand ? 0 : 1;
}
