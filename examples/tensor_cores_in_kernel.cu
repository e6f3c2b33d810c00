// The tensor cores inside your own kernel, one warp tile at a time: C = A B (A M x K, B K x N,
// C M x N, all row-major) with the warp-level MMA classes. Each block owns a 64 x 64 tile of C;
// per K step (one MMA's k) it stages a 64 x k slice of A and a k x 64 slice of B in shared
// memory with copy_tile, and each of its 8 warps multiplies its 32 x 16 warp tile of the slices
// into accumulators that stay in registers across the K loop. Three kinds of math, one kernel:
//   - WarpMmaTf32<..., GemmMath::tf32>: float operands rounded to TF32 (10 explicit mantissa
//     bits) on the way into m16n8k8 MMAs: much more throughput than FP32 FMAs, but each product
//     is off by up to about 2^-10 of itself, so C is accurate to roughly 1e-4 .. 1e-3;
//   - WarpMmaTf32<..., GemmMath::tf32x3>: each operand split into a TF32 part and a TF32
//     remainder, three MMAs per product: FP32's accuracy from the tensor cores;
//   - WarpMma16: __nv_bfloat16 operands (8 significant bits: the data itself loses precision
//     when rounded to them), m16n8k16 MMAs, exact products summed in FP32 accumulators.
// The warp classes read their fragments from shared tiles with rules of their own: B as a K x N
// tile (which is B's own row-major layout), A as K x M, here a TransposedView of an M x K tile
// (A's own layout, K contiguous), and rows padded so that the fragment loads hit every bank once.
// Any M, N, K: copy_tile writes zeros where a tile overhangs A or B (zero products add nothing),
// and each lane stores only those of its results that lie inside C. Below sm_80 the MMA wrappers
// compute the same products with FP32 FMAs: slow, same results within rounding.
// This kernel teaches the pieces; it is not tuned (one stage, no cp.async pipeline):
// tilecraft::tiled_gemm (gemm_in_kernel.cu) is the block-level GEMM built from them.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>

#include <tilecraft/gemm/warp_mma_16bit.cuh>
#include <tilecraft/gemm/warp_mma_tf32.cuh>
#include <tilecraft/memory/matrix_ref.cuh>
#include <tilecraft/memory/shared_tile.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include "example_util.cuh"

namespace {

using tilecraft::GemmMath;

constexpr int tile_m = 64, tile_n = 64;  // the block's tile of C
constexpr int warp_m = 32, warp_n = 16;  // each warp's tile: 2 x 2 MMA tiles of 16 x 8
constexpr int warps_n = tile_n / warp_n;
constexpr int threads = (tile_m / warp_m) * warps_n * 32;  // 8 warps
// The K step: 32 bytes of each row of A, one MMA's k (8 floats for TF32, 16 BF16 values). (A
// deeper step would mean fewer barriers per MMA, but a longer unrolled body in every kernel.)
template <class T>
constexpr int tile_k = static_cast<int>(32 / sizeof(T));

// A's slice keeps A's layout, 64 rows of tile_k contiguous k, each row padded by 16 bytes: rows
// of 48 bytes, an odd number of 16-byte chunks, so that the 8 rows one ldmatrix phase reads fall
// in 8 different groups of 4 banks (the warp classes load their fragments by ldmatrix from it).
template <class T>
using TileA = tilecraft::SharedMatrix<T, tile_m, tile_k<T>, tilecraft::Padded<static_cast<int>(16 / sizeof(T))>>;
// B's slice: tile_k rows of 64 n, padded by 8 elements. Float rows of 72 (8 mod 32) put the 4 k
// rows x 8 columns a warp's TF32 fragment load touches on 32 different banks; BF16 rows of 144
// bytes are 9 chunks, odd again for ldmatrix.
template <class T>
using TileB = tilecraft::SharedMatrix<T, tile_k<T>, tile_n, tilecraft::Padded<8>>;
// The warp classes take their operands as K x M and K x N: B's slice is that already, A's is
// named by the view multiply() reads, a TransposedView of its M x K tile.
template <class T>
using ViewA = tilecraft::TransposedView<const TileA<T>>;

template <class T, GemmMath Math>
using WarpTileMma =
    std::conditional_t<Math == GemmMath::mma16, tilecraft::WarpMma16<ViewA<T>, TileB<T>, warp_m, warp_n>,
                       tilecraft::WarpMmaTf32<ViewA<T>, TileB<T>, warp_m, warp_n, Math>>;

// One block: the 64 x 64 tile of C at (blockIdx.y, blockIdx.x) * 64. T is float (Math tf32 or
// tf32x3) or __nv_bfloat16 (Math mma16); C is float either way.
template <class T, GemmMath Math>
__global__ void __launch_bounds__(threads)
    warp_tile_gemm(tilecraft::MatrixRef<const T> a, tilecraft::MatrixRef<const T> b, tilecraft::MatrixRef<float> c) {
  using Mma = WarpTileMma<T, Math>;
  __shared__ TileA<T> sa;  // 64 x tile_k: A(m0 + i, k0 + k)
  __shared__ TileB<T> sb;  // tile_k x 64: B(k0 + k, n0 + j)
  const std::int64_t m0 = std::int64_t{blockIdx.y} * tile_m, n0 = std::int64_t{blockIdx.x} * tile_n;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  // The warp's tile starts at (row, column) of the block's tile: 2 x 4 warps.
  const Mma mma((warp / warps_n) * warp_m, (warp % warps_n) * warp_n);
  typename Mma::Accumulators acc = {};  // 2 x 2 MMA tiles x 4 floats per lane
  for (std::int64_t k0 = 0; k0 < a.cols; k0 += tile_k<T>) {
    // Every thread of the block helps fill both slices; zeros where they overhang A or B.
    tilecraft::copy_tile<threads>(sa, a, m0, k0);
    tilecraft::copy_tile<threads>(sb, b, k0, n0);
    __syncthreads();  // the slices are complete before any warp reads them
    // acc += (the warp's 32 rows of A's slice) x (its 16 columns of B's slice): one MMA per
    // 16 x 8 tile (three for 3xTF32). Every lane of the warp must call it (mma.sync).
    mma.multiply(tilecraft::transposed(sa), sb, acc);
    __syncthreads();  // every warp is done reading before the next step overwrites the slices
  }
  // Lane (g, t) = (lane / 4, lane % 4) holds, for MMA tile (i, j), rows g and g + 8 and
  // columns 2t and 2t + 1 of it; row() and col() say where in the block's tile.
#pragma unroll
  for (int i = 0; i < Mma::tiles_m; ++i) {
#pragma unroll
    for (int j = 0; j < Mma::tiles_n; ++j) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const std::int64_t row = m0 + mma.row(i, r), col = n0 + mma.col(j, r);
        if (row < c.rows && col < c.cols) c(row, col) = acc[i][j][r];
      }
    }
  }
}

double value(float x) { return x; }
double value(__nv_bfloat16 x) { return __bfloat162float(x); }

// The exact product of a and b (in double: every product, and these sums, far inside its 53
// bits) and, per element, the sum of its K terms' magnitudes: every rounding error of a dot
// product scales with that sum, not with the (possibly cancelled) result.
struct Exact {
  std::vector<double> c, mag;
};
template <class T>
Exact exact_product(const std::vector<T>& a, const std::vector<T>& b, int m, int n, int k) {
  Exact e{std::vector<double>(static_cast<std::size_t>(m) * n), std::vector<double>(static_cast<std::size_t>(m) * n)};
  for (int i = 0; i < m; ++i) {
    double* c = &e.c[static_cast<std::size_t>(i) * n];
    double* mag = &e.mag[static_cast<std::size_t>(i) * n];
    for (int q = 0; q < k; ++q) {
      const double x = value(a[static_cast<std::size_t>(i) * k + q]);
      for (int j = 0; j < n; ++j) {
        const double term = x * value(b[static_cast<std::size_t>(q) * n + j]);
        c[j] += term;
        mag[j] += std::fabs(term);
      }
    }
  }
  return e;
}

// ||got - exact|| / ||exact|| over all of C (Frobenius norms): what the math costs in accuracy.
double relative_error(const std::vector<float>& got, const std::vector<double>& exact) {
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    err += (got[i] - exact[i]) * (got[i] - exact[i]);
    norm += exact[i] * exact[i];
  }
  return std::sqrt(err / norm);
}

// Runs warp_tile_gemm<T, Math>, checks every element of C against `want` (|C - exact| within
// tolerance x the sum of the terms' magnitudes), prints its line with the relative error
// against the float data's exact product `data`; true when correct.
template <class T, GemmMath Math>
bool run(const char* label, tilecraft::MatrixRef<const T> a, tilecraft::MatrixRef<const T> b,
         tilecraft::MatrixRef<float> c, const Exact& want, double tolerance, const Exact& data) {
  const std::size_t elems = static_cast<std::size_t>(c.rows * c.cols);
  TILECRAFT_THROW_IF_ERROR(cudaMemset(c.data, 0xff, elems * sizeof(float)));  // NaN: an unwritten element fails
  const dim3 grid(static_cast<unsigned>((c.cols + tile_n - 1) / tile_n),
                  static_cast<unsigned>((c.rows + tile_m - 1) / tile_m));
  auto launch = [&] {
    warp_tile_gemm<T, Math><<<grid, threads>>>(a, b, c);
    TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  };
  launch();
  std::vector<float> got(elems);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), c.data, elems * sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (std::size_t i = 0; i < elems; ++i) {
    ok = ok && std::fabs(got[i] - want.c[i]) <= tolerance * want.mag[i];  // false for a NaN too
  }
  const double ms = example::time_ms(launch);
  char verdict[64];
  std::snprintf(verdict, sizeof verdict, "%s (relative error %.1e)", example::verdict(ok), relative_error(got, data.c));
  example::report_flops(label, ms, 2.0 * double(c.rows) * double(c.cols) * double(a.cols), verdict);
  return ok;
}

}  // namespace

int main() {
  if (!example::have_gpu("tensor_cores_in_kernel")) return 0;
  // Multiples of no tile: 16 x 10 blocks, the last row and column of them overhanging C, and a
  // last K step of 4 floats or 12 BF16 values. (BF16 rows of A, 600 bytes, are not 16-byte
  // aligned either: copy_tile then moves A element by element, correct for any alignment.)
  const int m = 1000, n = 600, k = 300;
  std::vector<float> ha(static_cast<std::size_t>(m) * k), hb(static_cast<std::size_t>(k) * n);
  example::UniformFloats uniform(-1.0f, 1.0f, 2024);
  for (auto& x : ha) x = uniform();
  for (auto& x : hb) x = uniform();
  std::vector<__nv_bfloat16> ha16(ha.size()), hb16(hb.size());
  for (std::size_t i = 0; i < ha.size(); ++i) ha16[i] = __float2bfloat16(ha[i]);  // to nearest
  for (std::size_t i = 0; i < hb.size(); ++i) hb16[i] = __float2bfloat16(hb[i]);
  const Exact exact = exact_product(ha, hb, m, n, k);        // of the float data
  const Exact exact16 = exact_product(ha16, hb16, m, n, k);  // of the data the BF16 run reads

  // For scale: the same product summed in FP32 on the host, one k at a time.
  std::vector<float> fp32(static_cast<std::size_t>(m) * n, 0.0f);
  for (int i = 0; i < m; ++i) {
    for (int q = 0; q < k; ++q) {
      for (int j = 0; j < n; ++j) {
        fp32[static_cast<std::size_t>(i) * n + j] +=
            ha[static_cast<std::size_t>(i) * k + q] * hb[static_cast<std::size_t>(q) * n + j];
      }
    }
  }
  std::printf("C = A B, A %d x %d, B %d x %d, uniform in [-1, 1); %d x %d tiles per block, %d x %d per warp.\n", m, k,
              k, n, tile_m, tile_n, warp_m, warp_n);
  std::printf("Relative errors against the exact product of the float data; FP32 on the host: %.1e\n",
              relative_error(fp32, exact.c));

  float *a = example::device_copy(ha), *b = example::device_copy(hb), *c = nullptr;
  __nv_bfloat16 *a16 = example::device_copy(ha16), *b16 = example::device_copy(hb16);
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&c, static_cast<std::size_t>(m) * n * sizeof(float)));
  const tilecraft::MatrixRef<const float> ra{a, m, k, k}, rb{b, k, n, n};
  const tilecraft::MatrixRef<const __nv_bfloat16> ra16{a16, m, k, k}, rb16{b16, k, n, n};
  const tilecraft::MatrixRef<float> rc{c, m, n, n};

  // Tolerances, in units of each element's sum of term magnitudes (u = 2^-24, FP32's unit
  // roundoff). FP32 accumulation of K products: within 2 (K + 2) u (twice the textbook K u: the
  // tensor cores' additions truncate instead of rounding to nearest).
  //   - TF32: rounding each operand to 11 significant bits moves it by up to 2^-11 of itself,
  //     a product by up to 2^-10: that, plus the accumulation (the few u of slack cover it).
  //   - 3xTF32: the dropped small x small term and the split leave up to 12 u per product:
  //     2 (K + 8) u, against the float data itself.
  //   - BF16: against the BF16-rounded data; those products are exact in FP32 (8 x 8 bits), so
  //     only the accumulation remains: 2 (K + 2) u. (Its error against the float data is the
  //     data's rounding to 8 bits, reported but not checked.)
  const double u = 0x1p-24;
  const bool ok_tf32 =
      run<float, GemmMath::tf32>("TF32 (WarpMmaTf32, tf32)", ra, rb, rc, exact, 0x1p-10 + 2.0 * (k + 8) * u, exact);
  const bool ok_tf32x3 =
      run<float, GemmMath::tf32x3>("3xTF32 (WarpMmaTf32, tf32x3)", ra, rb, rc, exact, 2.0 * (k + 8) * u, exact);
  const bool ok_bf16 = run<__nv_bfloat16, GemmMath::mma16>("BF16 operands (WarpMma16)", ra16, rb16, rc, exact16,
                                                           2.0 * (k + 2) * u, exact);
  TILECRAFT_THROW_IF_ERROR(cudaFree(a));
  TILECRAFT_THROW_IF_ERROR(cudaFree(b));
  TILECRAFT_THROW_IF_ERROR(cudaFree(a16));
  TILECRAFT_THROW_IF_ERROR(cudaFree(b16));
  TILECRAFT_THROW_IF_ERROR(cudaFree(c));
  return ok_tf32 && ok_tf32x3 && ok_bf16 ? 0 : 1;
}
