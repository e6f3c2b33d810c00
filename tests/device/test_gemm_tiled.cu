// test_gemm (see gemm_testbed.cuh): the block-level tiled_gemm inside a user's kernel, on
// MatrixRef and transposed() views of both orders, with 1-D, 2-D and 3-D blocks and a
// persistent loop over the tiles; and on the tensor cores (GemmMath::tf32 and tf32x3), each
// within its math's bound, each filling A and B from both orders, every op pair under one of them.
#include <doctest/doctest.h>

#include <cstdint>

#include <tilecraft/gemm/tiled_gemm.cuh>
#include <tilecraft/util/launch.cuh>

#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;

// Compiled here for the whole executable (see gemm_testbed.cuh).
TILECRAFT_TEST_GEMM_DEFAULT_PRODUCTS_F64();
TILECRAFT_GEMM_INSTANCE(, double);
using tilecraft::BasicLinearCombination;
using tilecraft::MatrixRef;
using tilecraft::Order;
using tilecraft::RegBlock;

namespace {

template <class T>
using UserGemm = tilecraft::TiledGemm<64, 64, RegBlock<4, 4>, 8, 4, 3, T>;
static_assert(UserGemm<float>::threads == 256 && UserGemm<double>::threads == 256);

// Each block walks the 64 x 64 tiles of C from blockIdx.x in steps of gridDim.x, reusing its
// storage (tiled_gemm ends with a barrier). Any block shape of 256 threads.
template <class TA, Order OA, class TB, Order OB, class T, Order OC>
__global__ void user_gemm_kernel(MatrixRef<TA, OA> a, MatrixRef<TB, OB> b, MatrixRef<T, OC> c,
                                 BasicLinearCombination<T> epi) {
  __shared__ typename UserGemm<T>::TempStorage storage;
  const std::int64_t tiles_m = (c.rows + 63) / 64, tiles_n = (c.cols + 63) / 64;
  for (std::int64_t t = blockIdx.x; t < tiles_m * tiles_n; t += gridDim.x) {
    tilecraft::tiled_gemm<64, 64, RegBlock<4, 4>>(storage, a, b, c, t / tiles_n * 64, t % tiles_n * 64, epi);
  }
}

// BLAS's epilogue returning double whatever T is: tiled_gemm converts a wider result once, in
// each of its stores (a float C's 16- and 8-byte vectors among them), as GemmEpilogue allows.
template <class T>
struct WideLinearCombination {
  BasicLinearCombination<T> blas;
  TILECRAFT_HOST_DEVICE bool reads_c() const { return blas.reads_c(); }
  TILECRAFT_HOST_DEVICE double operator()(T acc, T c_old, std::int64_t, std::int64_t) const {
    const double scaled = static_cast<double>(blas.alpha) * static_cast<double>(acc);
    return blas.beta != T(0) ? scaled + static_cast<double>(blas.beta) * static_cast<double>(c_old) : scaled;
  }
};
static_assert(tilecraft::GemmEpilogue<WideLinearCombination<float>, float>);

// Tiles off the 64 x 64 grid: block (x, y) computes the tile at ((y - 2) * 64 + shift_m,
// (x - 2) * 64 + shift_n), shifts in (-64, 64). A grid of tiles_m + 4 by tiles_n + 4 blocks
// then covers every element of C exactly once, with tiles at negative origins, tiles
// overhanging every edge, and on each side one tile wholly outside C (which must read and
// write nothing).
template <class TA, Order OA, class TB, Order OB, class T, Order OC>
__global__ void shifted_gemm_kernel(MatrixRef<TA, OA> a, MatrixRef<TB, OB> b, MatrixRef<T, OC> c,
                                    WideLinearCombination<T> epi, std::int64_t shift_m, std::int64_t shift_n) {
  __shared__ typename UserGemm<T>::TempStorage storage;
  const std::int64_t m0 = (std::int64_t{blockIdx.y} - 2) * 64 + shift_m;
  const std::int64_t n0 = (std::int64_t{blockIdx.x} - 2) * 64 + shift_n;
  tilecraft::tiled_gemm<64, 64, RegBlock<4, 4>>(storage, a, b, c, m0, n0, epi);
}

// The documentation's kernel: one tile per block of a 2-D grid, the default epilogue (C = A B).
template <class T>
__global__ void doc_gemm_kernel(MatrixRef<const T> a, MatrixRef<const T> b, MatrixRef<T> c) {
  __shared__ typename UserGemm<T>::TempStorage storage;
  tilecraft::tiled_gemm<64, 64, RegBlock<4, 4>>(storage, a, b, c, blockIdx.y * 64LL, blockIdx.x * 64LL);
}

// The tensor-core maths on the same tiling (warp tiles of 16 x 32: one by four MMA tiles), one
// tile per block of a 2-D grid, row-major C.
template <tilecraft::GemmMath Math>
using TensorGemm = tilecraft::TiledGemm<64, 64, RegBlock<4, 4>, 8, 4, 3, float, Math>;
static_assert(TensorGemm<tilecraft::GemmMath::tf32x3>::threads == 256 &&
              TensorGemm<tilecraft::GemmMath::tf32>::shape::TileA::layout::row_stride % 32 == 8);

// A larger tiling, the benchmark's TF32x3 one: 128 x 64 in 4 warps of 32 x 64, a K step of 32
// in 3 stages (dynamic shared memory). Its K-contiguous fill (8 rows of K per 64 vectors, or 256
// single elements) spans more than one pass of the 128 threads.
using WideTensorGemm = tilecraft::TiledGemm<128, 64, RegBlock<8, 8>, 32, 4, 3, float, tilecraft::GemmMath::tf32x3>;
static_assert(WideTensorGemm::threads == 128 && WideTensorGemm::smem_bytes > 48 * 1024);

// One tile per block of a 2-D grid; with shifts, tiles off the grid as in shifted_gemm_kernel
// (`border` tiles before C on each side).
template <class Gemm, class TA, Order OA, class TB, Order OB>
__global__ void tensor_gemm_kernel(MatrixRef<TA, OA> a, MatrixRef<TB, OB> b, MatrixRef<float> c,
                                   WideLinearCombination<float> epi, int border, int shift_m, int shift_n) {
  extern __shared__ __align__(16) unsigned char tensor_smem[];
  auto& storage = *reinterpret_cast<typename Gemm::TempStorage*>(tensor_smem);
  tilecraft::tiled_gemm(storage, a, b, c, (std::int64_t{blockIdx.y} - border) * Gemm::shape::tile_m + shift_m,
                        (std::int64_t{blockIdx.x} - border) * Gemm::shape::tile_n + shift_n, epi);
}

// op(X) (rows x cols) as a view: the stored matrix in order O, or the transposed() view of the
// stored op(X)^T (the other order).
template <Order O, class T, class F>
void operand_view(const T* x, std::int64_t rows, std::int64_t cols, std::int64_t ld, bool transpose, F&& f) {
  if (transpose) {
    f(tilecraft::transposed(MatrixRef<const T, O>{x, cols, rows, ld}));
  } else {
    f(MatrixRef<const T, O>{x, rows, cols, ld});
  }
}

// run.launch<O>(...) for the problem's order O; the launch status.
template <class Run, class T>
cudaError_t launch_in_order(const Run& run, const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) {
  if (p.row()) {
    run.template launch<Order::row_major>(p, a, b, c, stream);
  } else {
    run.template launch<Order::col_major>(p, a, b, c, stream);
  }
  return cudaGetLastError();
}

// A runner for check_gemm: user_gemm_kernel on `blocks` blocks (0: one per tile) of shape
// `block`.
struct UserKernelRun {
  unsigned blocks;
  dim3 block;
  template <Order O, class T>
  void launch(const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) const {
    const std::int64_t tiles = (p.m + 63) / 64 * ((p.n + 63) / 64);
    const unsigned grid = blocks == 0 ? static_cast<unsigned>(tiles) : blocks;
    operand_view<O>(a, p.m, p.k, p.lda(), p.ta(), [&](auto av) {
      operand_view<O>(b, p.k, p.n, p.ldb(), p.tb(), [&](auto bv) {
        user_gemm_kernel<<<grid, block, 0, stream>>>(av, bv, MatrixRef<T, O>{c, p.m, p.n, p.ldc()},
                                                     BasicLinearCombination<T>{p.alpha, p.beta});
      });
    });
  }
  template <class T>
  cudaError_t operator()(const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) const {
    return launch_in_order(*this, p, a, b, c, stream);
  }
};

// A runner for check_gemm: shifted_gemm_kernel, shifts in (-64, 64) (and 2^32 away, where C must
// stay untouched).
struct ShiftedRun {
  std::int64_t shift_m, shift_n;
  template <Order O, class T>
  void launch(const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) const {
    const dim3 grid(static_cast<unsigned>((p.n + 63) / 64 + 4), static_cast<unsigned>((p.m + 63) / 64 + 4));
    operand_view<O>(a, p.m, p.k, p.lda(), p.ta(), [&](auto av) {
      operand_view<O>(b, p.k, p.n, p.ldb(), p.tb(), [&](auto bv) {
        shifted_gemm_kernel<<<grid, UserGemm<T>::threads, 0, stream>>>(av, bv, MatrixRef<T, O>{c, p.m, p.n, p.ldc()},
                                                                       WideLinearCombination<T>{{p.alpha, p.beta}},
                                                                       shift_m, shift_n);
      });
    });
  }
  template <class T>
  cudaError_t operator()(const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) const {
    return launch_in_order(*this, p, a, b, c, stream);
  }
};

// A runner for check_gemm: tensor_gemm_kernel on row-major problems. Each math fills both
// operand tiles from both orders (a K-major and an M- or N-major fill each), on half of the op
// pairs: TF32 A and B in the same order (none and none, transpose and transpose), TF32x3 in
// different orders (the other two); together every op pair. (Half the kernels of every pair
// under both maths, and the fills and MMAs are the same code whichever pair meets them.)
template <tilecraft::GemmMath Math, class Gemm = TensorGemm<Math>>
struct TensorKernelRun {
  static constexpr bool same_ops = Math == tilecraft::GemmMath::tf32;
  int shift_m = 0, shift_n = 0;  // nonzero: tiles off the grid (tensor_gemm_kernel), |shift| < the tile
  cudaError_t operator()(const Problem<float>& p, const float* a, const float* b, float* c, cudaStream_t stream) const {
    if ((p.ta() == p.tb()) != same_ops) return cudaErrorInvalidValue;  // an op pair this math does not run
    constexpr int tm = Gemm::shape::tile_m, tn = Gemm::shape::tile_n;
    const int border = shift_m != 0 || shift_n != 0 ? 2 : 0;
    const dim3 grid(static_cast<unsigned>((p.n + tn - 1) / tn + 2 * border),
                    static_cast<unsigned>((p.m + tm - 1) / tm + 2 * border));
    const auto run = [&](auto av, auto bv) {
      const auto kernel = tensor_gemm_kernel<Gemm, const float, decltype(av)::order, const float, decltype(bv)::order>;
      const cudaError_t opted = tilecraft::opt_in_dynamic_smem(kernel, Gemm::smem_bytes);
      if (opted != cudaSuccess) return opted;
      kernel<<<grid, Gemm::threads, Gemm::smem_bytes, stream>>>(av, bv, MatrixRef<float>{c, p.m, p.n, p.ldc()},
                                                                WideLinearCombination<float>{{p.alpha, p.beta}}, border,
                                                                shift_m, shift_n);
      return cudaGetLastError();
    };
    // op(X) as in operand_view: the stored matrix, or the transposed() view of the stored op(X)^T.
    const MatrixRef<const float> an{a, p.m, p.k, p.lda()}, bn{b, p.k, p.n, p.ldb()};
    const auto at = tilecraft::transposed(MatrixRef<const float>{a, p.k, p.m, p.lda()});
    const auto bt = tilecraft::transposed(MatrixRef<const float>{b, p.n, p.k, p.ldb()});
    if constexpr (same_ops) {
      return p.ta() ? run(at, bt) : run(an, bn);
    } else {
      return p.ta() ? run(at, bn) : run(an, bt);
    }
  }
};

}  // namespace

TEST_CASE_TEMPLATE("tiled_gemm on the tensor cores: TF32 and TF32x3 within their bounds, every op, odd shapes", Math,
                   std::integral_constant<tilecraft::GemmMath, tilecraft::GemmMath::tf32>,
                   std::integral_constant<tilecraft::GemmMath, tilecraft::GemmMath::tf32x3>) {
  // 126 x 131 x 63: vectors of 2 and 3 floats inside C along M and N (with the layouts whose
  // leading dimensions are multiples of 4, the vector fill's edge copies with a source size)
  // and of 3 along K (the K-contiguous operands' L x TK tiles).
  const std::int64_t shapes[][3] = {{1, 1, 1}, {64, 64, 64}, {127, 129, 65}, {126, 131, 63}, {200, 130, 301}};
  const bool full = full_run();
  std::uint64_t salt = Math::value == tilecraft::GemmMath::tf32 ? 7500 : 7700;
  int variant = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (int r = 0; r < 4; ++r) {  // the math's two row-major op pairs (see TensorKernelRun), twice
      const Combo& c = combos[TensorKernelRun<Math::value>::same_ops ? 3 * (r % 2) : 1 + r % 2];
      const Problem<float> p =
          make_problem(c, s[0], s[1], s[2], layouts[variant % layout_count], 1.5f, variant % 2 ? -0.5f : 0.0f);
      check_gemm(p, ++salt, TensorKernelRun<Math::value>{}, nullptr, true, {}, Math::value);
      ++variant;
    }
  }
}

TEST_CASE("tiled_gemm on the tensor cores, 128 x 64 tiles with a K step of 32: TF32x3 within its bound") {
  // TF32x3 runs the op pairs whose views have different orders: A row-major with B column-major
  // (both stored with K contiguous: the L x TK tiles' fills, in vectors or, for unaligned
  // layouts, element by element), and A column-major with B row-major (both K-major tiles).
  const std::int64_t shapes[][3] = {{1, 1, 1}, {128, 64, 64}, {127, 129, 65}, {200, 130, 301}};
  const bool full = full_run();
  std::uint64_t salt = 7900;
  int variant = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (int r = 0; r < 4; ++r) {
      const Combo& c = combos[1 + r % 2];
      const Problem<float> p =
          make_problem(c, s[0], s[1], s[2], layouts[variant % layout_count], 1.5f, variant % 2 ? -0.5f : 0.0f);
      check_gemm(p, ++salt, TensorKernelRun<tilecraft::GemmMath::tf32x3, WideTensorGemm>{}, nullptr, true, {},
                 tilecraft::GemmMath::tf32x3);
      ++variant;
    }
  }
}

TEST_CASE_TEMPLATE(
    "tiled_gemm in a user kernel: MatrixRef and transposed() views of both orders, 1-D, 2-D and 3-D blocks, "
    "a persistent loop",
    T, float, double) {
  const std::int64_t shapes[][3] = {{1, 1, 1}, {64, 64, 64}, {127, 129, 65}, {200, 130, 77}};
  const bool full = full_run();
  std::uint64_t salt = 7000;
  for_each_case(shapes, [&](const Combo& c, const auto& s, const Layout& layout, int variant) {
    const Problem<T> p = make_problem(c, s[0], s[1], s[2], layout, T(1.5), variant % 2 ? T(-0.5) : T(0));
    check_gemm(p, ++salt, UserKernelRun{0, dim3(256)}, nullptr, true);    // a block per tile
    check_gemm(p, ++salt, UserKernelRun{3, dim3(32, 8)}, nullptr, true);  // 3 blocks loop over the tiles
    if (variant % 4 == 0) check_gemm(p, ++salt, UserKernelRun{2, dim3(16, 4, 4)}, nullptr, true);
  });
  // The documentation's kernel (row-major views, the default epilogue), and A as a MatrixRef of
  // non-const T with one block looping over every tile.
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    Problem<T> p = make_problem(combos[0], s[0], s[1], s[2], layouts[2], T(1), T(0));
    check_gemm(
        p, ++salt,
        [](const Problem<T>& q, const T* a, const T* b, T* c, cudaStream_t st) {
          const dim3 grid(static_cast<unsigned>((q.n + 63) / 64), static_cast<unsigned>((q.m + 63) / 64));
          doc_gemm_kernel<T><<<grid, UserGemm<T>::threads, 0, st>>>(MatrixRef<const T>{a, q.m, q.k, q.lda()},
                                                                    MatrixRef<const T>{b, q.k, q.n, q.ldb()},
                                                                    MatrixRef<T>{c, q.m, q.n, q.ldc()});
          return cudaGetLastError();
        },
        nullptr, true);
    p = make_problem(combos[0], s[0], s[1], s[2], layouts[0], T(0.5), T(2));
    check_gemm(
        p, ++salt,
        [](const Problem<T>& q, const T* a, const T* b, T* c, cudaStream_t st) {
          user_gemm_kernel<<<1, UserGemm<T>::threads, 0, st>>>(
              MatrixRef<T>{const_cast<T*>(a), q.m, q.k, q.lda()}, MatrixRef<const T>{b, q.k, q.n, q.ldb()},
              MatrixRef<T>{c, q.m, q.n, q.ldc()}, BasicLinearCombination<T>{q.alpha, q.beta});
          return cudaGetLastError();
        },
        nullptr, true);
  }
}

TEST_CASE("tiled_gemm with a B of fewer rows than A has columns reads B only inside its rows") {
  // The rule is a M x K, b K x N; broken (b.rows < a.cols: a user's slip), the product runs
  // over K = b.rows, C = A(:, 0 ... kb) B, and nothing past B is read (B's buffer ends with its
  // last row: memcheck sees a read past it). Device assertions stop the kernel at the rule.
#if defined(TILECRAFT_ENABLE_DEVICE_ASSERTIONS)
  MESSAGE("device assertions on: the broken rule traps, not run");
#else
  const std::int64_t m = 70, n = 67, k = 100, kb = 61;
  // Small integers: every product and sum exact in float.
  const auto ia = tilecraft::test::random_vector<int>(static_cast<std::size_t>(m * k), -4, 4, 7400);
  const auto ib = tilecraft::test::random_vector<int>(static_cast<std::size_t>(kb * n), -4, 4, 7401);
  const std::vector<float> a(ia.begin(), ia.end()), b(ib.begin(), ib.end());
  tilecraft::test::DeviceBuffer<float> da(a), db(b), dc(static_cast<std::size_t>(m * n));
  dc.poison();
  const dim3 grid(static_cast<unsigned>((n + 63) / 64), static_cast<unsigned>((m + 63) / 64));
  doc_gemm_kernel<float><<<grid, UserGemm<float>::threads>>>(MatrixRef<const float>{da.get(), m, k, k},
                                                             MatrixRef<const float>{db.get(), kb, n, n},
                                                             MatrixRef<float>{dc.get(), m, n, n});
  tilecraft::test::sync_and_check();
  const auto got = dc.download();
  int bad = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double want = 0.0;
      for (std::int64_t q = 0; q < kb; ++q)
        want += double(a[std::size_t(i * k + q)]) * double(b[std::size_t(q * n + j)]);
      bad += !(double(got[std::size_t(i * n + j)]) == want);
    }
  }
  CHECK(bad == 0);
#endif
}

TEST_CASE_TEMPLATE("tiled_gemm at any origin: tiles at negative and past-the-end origins, wholly outside C too", T,
                   float, double) {
  // Random shifts (multiples of the vector width and not: the vector and element fills), every
  // order and op pair, layouts with NaN beside A and B and poison beside C. A read past an
  // operand along K shows as NaN in C; one along M or N would only feed results outside C, so
  // A and B keep the start of their allocations (memcheck sees a read before them). C starts
  // past a guard of poison as deep as a tile's overhang (64 rows and columns): a write before
  // C, or past it, changes a poison element.
  const std::int64_t shapes[][3] = {{1, 1, 1}, {64, 64, 64}, {127, 129, 65}, {200, 130, 77}};
  std::uint64_t salt = 7300;
  auto g = tilecraft::test::rng(salt);
  const auto shift = [&](bool vector) {
    int v = static_cast<int>(g() % 127) - 63;  // (-64, 64)
    if (vector) v -= v % 4;                    // a multiple of 4 (of 2 doubles too): the vector fill
    return v;
  };
  for_each_case(shapes, [&](const Combo& c, const auto& s, const Layout& layout, int variant) {
    Problem<T> p = make_problem(c, s[0], s[1], s[2], layout, T(1.5), variant % 2 ? T(-0.5) : T(0));
    p.off_c += 64 * p.ldc() + 64;  // (a multiple of 4: C's alignment, and so its store path, kept)
    const ShiftedRun run{shift(variant % 2 == 0), shift(variant % 3 == 0)};
    INFO("shift_m = " << run.shift_m << ", shift_n = " << run.shift_n);
    check_gemm(p, ++salt, run, nullptr, true);
    // Origins 2^32 away on one axis: every tile wholly outside C, so C stays as it was (origins
    // truncated to 32 bits would put the tiles back on C).
    if (variant % 3 == 0) {
      const std::int64_t far = (std::int64_t{1} << 32) * (variant % 2 ? -1 : 1);
      check_untouched(p, ++salt, ShiftedRun{far + run.shift_m, run.shift_n});
      check_untouched(p, ++salt, ShiftedRun{run.shift_m, far + run.shift_n});
    }
  });
  // The tensor cores' fills (L x TK tiles of K-contiguous operands, K-major tiles of the others)
  // on every row-major op pair, each under the math that runs it (TensorKernelRun: TF32 the
  // pairs of equal ops, TF32x3 the others).
  if constexpr (std::is_same_v<T, float>) {
    const std::int64_t tensor_shapes[][3] = {{1, 1, 1}, {127, 129, 65}};
    int variant = 0;
    for (const auto& s : tensor_shapes) {
      for (int r = 0; r < 4; ++r, ++variant) {
        const bool tf32 = r == 0 || r == 3;  // combos[0 ... 3]: NN, TN, NT, TT, row-major
        Problem<float> p = make_problem(combos[r], s[0], s[1], s[2], layouts[variant % layout_count], 1.5f,
                                        variant % 2 ? -0.5f : 0.0f);
        p.off_c += 64 * p.ldc() + 64;
        const auto check = [&](auto run, tilecraft::GemmMath math) {
          run.shift_m = shift(variant % 2 == 0);
          run.shift_n = shift(variant % 3 == 0);
          INFO("tensor cores, shift_m = " << run.shift_m << ", shift_n = " << run.shift_n);
          check_gemm(p, ++salt, run, nullptr, true, {}, math);
        };
        if (tf32) {
          check(TensorKernelRun<tilecraft::GemmMath::tf32>{}, tilecraft::GemmMath::tf32);
        } else {
          check(TensorKernelRun<tilecraft::GemmMath::tf32x3>{}, tilecraft::GemmMath::tf32x3);
        }
      }
    }
  }
}
