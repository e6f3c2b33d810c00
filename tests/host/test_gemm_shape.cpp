// GemmShape and RegBlock, for float and double: derived quantities against their definitions,
// the lane -> fragment map, the fills' maps, and the fragment loads' bank behaviour recomputed
// from raw byte addresses.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <type_traits>

#include <tilecraft/device/gemm_policy.cuh>
#include <tilecraft/gemm/epilogue.cuh>
#include <tilecraft/gemm/gemm_shape.cuh>

using namespace tilecraft;

// Epilogues: the float one is not a double GEMM's (it would round every element), the double
// one serves double; a float GEMM takes an epilogue returning double (converted once).
namespace {
struct ReturnsDouble {
  bool reads_c() const { return false; }
  double operator()(float acc, float, std::int64_t, std::int64_t) const { return 2.0 * acc; }
};
}  // namespace
static_assert(GemmEpilogue<LinearCombination> && GemmEpilogue<BasicLinearCombination<double>, double>);
static_assert(!GemmEpilogue<LinearCombination, double>);
static_assert(GemmEpilogue<ReturnsDouble, float>);

namespace {
template <class Shape, class Map, int Width, int L>
void check_fill() {
  CAPTURE(L);
  CAPTURE(Width);
  std::set<int> seen;
  for (int t = 0; t < Shape::threads; ++t) {
    for (int i = 0; i < Map::per_thread; ++i) {
      const int v = t + i * Shape::threads;
      const int row = Map::row(v);
      CHECK(row == Map::row(t) + Map::row_step(i));
      CHECK(Map::col(v) == Map::col(t) + Map::col_step(i));
      if (row >= Shape::tile_k) continue;  // past the tile in a ragged last pass
      for (int j = 0; j < Width; ++j) {
        REQUIRE(Map::col(v) + j < L);
        CHECK(seen.insert(row * L + Map::col(v) + j).second);
      }
    }
  }
  CHECK(seen.size() == static_cast<std::size_t>(Shape::tile_k) * static_cast<std::size_t>(L));
}

// FillKRows<L, Width> of an L x TK tile with rows of TK + one 16-byte vector (TileAk, TileBk:
// 4 floats, 8 16-bit elements): every element once, the compile-time steps, and each phase of
// a warp's writes (8 lanes of 16 bytes, or 32 of 4) on different banks, from the row stride
// alone.
template <class Shape, int L, int Width>
void check_k_rows() {
  using Map = typename Shape::template FillKRows<L, Width>;
  using T = typename Shape::TileAk::value_type;
  static_assert(Width == 16 / static_cast<int>(sizeof(T)) || (Width == 1 && sizeof(T) == 4));
  CAPTURE(L);
  CAPTURE(Width);
  constexpr int stride = Shape::tile_k + 16 / static_cast<int>(sizeof(T));
  static_assert(Shape::TileAk::layout::row_stride == stride && Shape::TileBk::layout::row_stride == stride);
  std::set<int> seen;
  for (int t = 0; t < Shape::threads; ++t) {
    for (int i = 0; i < Map::per_thread; ++i) {
      const int v = t + i * Shape::threads;
      CHECK(Map::row(v) == Map::row(t) + Map::row_step(i));
      CHECK(Map::col(v) == Map::col(t) + Map::col_step(i));
      if (Map::row(v) >= L) continue;  // past the tile in a ragged last pass
      for (int j = 0; j < Width; ++j) CHECK(seen.insert(Map::row(v) * Shape::tile_k + Map::col(v) + j).second);
    }
  }
  CHECK(seen.size() == static_cast<std::size_t>(L) * static_cast<std::size_t>(Shape::tile_k));
  const int phase = Width == 1 ? 32 : 8;  // lanes one shared-memory wavefront serves
  for (int first = 0; first < Shape::threads; first += phase) {
    std::set<int> groups;  // 4-byte banks, or 16-byte bank groups
    for (int v = first; v < first + phase; ++v) {
      const int byte = (Map::row(v) * stride + Map::col(v)) * static_cast<int>(sizeof(T));
      groups.insert(Width == 1 ? byte / 4 % 32 : byte / 16 % 8);
    }
    CHECK(static_cast<int>(groups.size()) == phase);
  }
}

template <class Shape>
void check_shape() {
  using Rb = typename Shape::reg_block;
  using T = typename Shape::element_type;
  constexpr int v = Shape::vector_elems;
  constexpr long long elem = static_cast<long long>(sizeof(T));
  CAPTURE(sizeof(T));
  CAPTURE(Shape::tile_m);
  CAPTURE(Shape::tile_n);
  CAPTURE(Rb::rows);
  CAPTURE(Rb::cols);
  CAPTURE(Shape::lanes_m);
  CHECK(Shape::lanes_m * Shape::lanes_n == 32);
  CHECK(Shape::warp_m * Shape::warps_m == Shape::tile_m);
  CHECK(Shape::warp_n * Shape::warps_n == Shape::tile_n);
  CHECK(Shape::threads == 32 * Shape::warps);
  CHECK(v * sizeof(T) == 16);
  CHECK(Shape::vector_m == std::min(Rb::rows, v));
  CHECK(Shape::vector_n == std::min(Rb::cols, v));
  CHECK(Shape::groups_m * Shape::vector_m == Rb::rows);
  CHECK(Shape::groups_n * Shape::vector_n == Rb::cols);
  // Shared memory: every stage holds both padded tiles of T, rows 16-byte aligned.
  CHECK(Shape::smem_bytes == static_cast<std::size_t>(Shape::stages) * (Shape::TileA::bytes + Shape::TileB::bytes));
  CHECK(Shape::TileA::bytes == sizeof(T) * static_cast<std::size_t>(Shape::TileA::storage_elems));
  CHECK(Shape::TileA::layout::row_stride * sizeof(T) % 16 == 0);
  CHECK(Shape::TileB::layout::row_stride * sizeof(T) % 16 == 0);
  CHECK(Shape::TileA::layout::row_stride >= Shape::tile_m);
  // The padding's purpose, from raw byte addresses: the K-contiguous fill's warps write
  // fill_k_run consecutive rows of 32 / fill_k_run columns, element by element, on distinct
  // banks in every phase (all 32 lanes for 4-byte elements, 16 for 8-byte ones).
  for (int w = 0; w < Shape::threads / 32; ++w) {
    const auto scatter_wavefronts = [&](auto map, int l, int stride) {
      return bank::wavefronts(
          [&](int lane) {
            const int e = w * 32 + lane;
            if (e >= Shape::tile_k * l) return -1LL;
            return elem * (static_cast<long long>(map.row(e)) * stride + map.col(e));
          },
          static_cast<int>(elem));
    };
    CHECK(scatter_wavefronts(typename Shape::template FillScatter<Shape::tile_m>{}, Shape::tile_m,
                             Shape::TileA::layout::row_stride) <= bank::ideal_wavefronts(static_cast<int>(elem)));
    CHECK(scatter_wavefronts(typename Shape::template FillScatter<Shape::tile_n>{}, Shape::tile_n,
                             Shape::TileB::layout::row_stride) <= bank::ideal_wavefronts(static_cast<int>(elem)));
  }
  // Fills: every tile element is written exactly once by the row fills (both widths) and the
  // K-contiguous fill, and each thread's i-th element is its first moved by the stated step.
  check_fill<Shape, typename Shape::template FillRows<Shape::tile_k, Shape::tile_m, v>, v, Shape::tile_m>();
  check_fill<Shape, typename Shape::template FillRows<Shape::tile_k, Shape::tile_n, v>, v, Shape::tile_n>();
  check_fill<Shape, typename Shape::template FillRows<Shape::tile_k, Shape::tile_m, 1>, 1, Shape::tile_m>();
  check_fill<Shape, typename Shape::template FillScatter<Shape::tile_m>, 1, Shape::tile_m>();
  check_fill<Shape, typename Shape::template FillScatter<Shape::tile_n>, 1, Shape::tile_n>();
  // Every element of C belongs to exactly one (warp, lane, register): the map covers the tile.
  std::set<long> seen;
  for (int warp = 0; warp < Shape::warps; ++warp) {
    for (int lane = 0; lane < 32; ++lane) {
      for (int gm = 0; gm < Shape::groups_m; ++gm) {
        for (int vm = 0; vm < Shape::vector_m; ++vm) {
          for (int gn = 0; gn < Shape::groups_n; ++gn) {
            for (int vn = 0; vn < Shape::vector_n; ++vn) {
              const int m = Shape::fragment_col_a(warp, lane, gm) + vm;
              const int n = Shape::fragment_col_b(warp, lane, gn) + vn;
              REQUIRE(m < Shape::tile_m);
              REQUIRE(n < Shape::tile_n);
              seen.insert(static_cast<long>(m) * Shape::tile_n + n);
            }
          }
        }
      }
    }
  }
  CHECK(seen.size() == static_cast<std::size_t>(Shape::tile_m) * Shape::tile_n);
  // Fragment loads: from byte addresses, every phase of the load (a quarter-warp of a 16-byte
  // load, a half-warp of an 8-byte one, the whole warp for narrower ones) touches at most one
  // 128-byte line's worth of distinct words.
  for (int warp = 0; warp < Shape::warps; ++warp) {
    for (int g = 0; g < Shape::groups_m; ++g) {
      const int bytes = Shape::vector_m * static_cast<int>(elem);
      const int w = bank::wavefronts([&](int lane) { return elem * Shape::fragment_col_a(warp, lane, g); }, bytes);
      CHECK(w == bank::ideal_wavefronts(bytes));
    }
    for (int g = 0; g < Shape::groups_n; ++g) {
      const int bytes = Shape::vector_n * static_cast<int>(elem);
      const int w = bank::wavefronts([&](int lane) { return elem * Shape::fragment_col_b(warp, lane, g); }, bytes);
      CHECK(w == bank::ideal_wavefronts(bytes));
    }
  }
  CHECK(Shape::template fragment_conflict_factor<false>() == 1);
  CHECK(Shape::template fragment_conflict_factor<true>() == 1);
}
// With tensor-core math: fills of runs of min(TK, 4) rows onto rows of 8 (mod 32) floats,
// conflict-free from raw byte addresses, every tile element filled once, and the MMA tiles of
// the warps (16 x 8, lane (g, t) holding rows g and g + 8, columns 2t and 2t + 1) covering C.
template <class Shape>
void check_tensor_shape() {
  CAPTURE(Shape::tile_m);
  CAPTURE(Shape::tile_n);
  CAPTURE(Shape::tile_k);
  static_assert(Shape::tensor_math && Shape::rules_ok);
  CHECK(Shape::fill_k_run == std::min(Shape::tile_k, 4));
  CHECK(Shape::TileA::layout::row_stride % 32 == 8);
  CHECK(Shape::TileB::layout::row_stride % 32 == 8);
  for (int w = 0; w < Shape::threads / 32; ++w) {
    const auto scatter_banks = [&](auto map, int l, int stride) {
      std::set<int> banks;
      int lanes = 0;
      for (int lane = 0; lane < 32; ++lane) {
        const int e = w * 32 + lane;
        if (e >= Shape::tile_k * l) continue;
        ++lanes;
        banks.insert((map.row(e) * stride + map.col(e)) % 32);
      }
      return static_cast<int>(banks.size()) == lanes;
    };
    CHECK(scatter_banks(typename Shape::template FillScatter<Shape::tile_m>{}, Shape::tile_m,
                        Shape::TileA::layout::row_stride));
    CHECK(scatter_banks(typename Shape::template FillScatter<Shape::tile_n>{}, Shape::tile_n,
                        Shape::TileB::layout::row_stride));
  }
  check_fill<Shape, typename Shape::template FillScatter<Shape::tile_m>, 1, Shape::tile_m>();
  check_fill<Shape, typename Shape::template FillRows<Shape::tile_k, Shape::tile_n, 4>, 4, Shape::tile_n>();
  // A TF32 fragment register: lane (g, t) reads (k + t, c + g); banks from the row stride.
  for (int k = 0; k < Shape::tile_k; k += 4) {
    std::set<int> banks;
    for (int lane = 0; lane < 32; ++lane)
      banks.insert(((k + lane % 4) * Shape::TileA::layout::row_stride + lane / 4) % 32);
    CHECK(banks.size() == 32);
  }
  CHECK(Shape::template fragment_conflict_factor<false>() == 1);
  CHECK(Shape::template fragment_conflict_factor<true>() == 1);
  // The K-contiguous tiles (an operand stored with K contiguous): L x TK, rows of TK + 4 floats,
  // in the same stage bytes as the K-major ones; lane (g, t) reads row c + g, column k + t.
  static_assert(Shape::TileAk::rows == Shape::tile_m && Shape::TileAk::cols == Shape::tile_k &&
                Shape::TileBk::rows == Shape::tile_n && Shape::TileAk::layout::row_stride == Shape::tile_k + 4);
  const auto elems = [](int l) {
    return std::max(Shape::tile_k * (l + Shape::operand_pad(l)), l * (Shape::tile_k + 4));
  };
  CHECK(Shape::smem_bytes ==
        static_cast<std::size_t>(Shape::stages) * (elems(Shape::tile_m) + elems(Shape::tile_n)) * sizeof(float));
  for (int k = 0; k < Shape::tile_k; k += 4) {
    std::set<int> banks;
    for (int lane = 0; lane < 32; ++lane) banks.insert(((lane / 4) * (Shape::tile_k + 4) + k + lane % 4) % 32);
    CHECK(banks.size() == 32);
  }
  check_k_rows<Shape, Shape::tile_m, 4>();
  check_k_rows<Shape, Shape::tile_n, 4>();
  check_k_rows<Shape, Shape::tile_m, 1>();
  check_k_rows<Shape, Shape::tile_n, 1>();
  std::set<long> seen;
  for (int warp = 0; warp < Shape::warps; ++warp) {
    const int m0 = (warp / Shape::warps_n) * Shape::warp_m, n0 = (warp % Shape::warps_n) * Shape::warp_n;
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < Shape::warp_m / 16; ++i) {
        for (int j = 0; j < Shape::warp_n / 8; ++j) {
          for (int r = 0; r < 4; ++r) {
            const int m = m0 + 16 * i + lane / 4 + 8 * (r / 2), n = n0 + 8 * j + 2 * (lane % 4) + r % 2;
            REQUIRE(m < Shape::tile_m);
            REQUIRE(n < Shape::tile_n);
            CHECK(seen.insert(static_cast<long>(m) * Shape::tile_n + n).second);
          }
        }
      }
    }
  }
  CHECK(seen.size() == static_cast<std::size_t>(Shape::tile_m) * Shape::tile_n);
}
}  // namespace

TEST_CASE("RegBlock and GemmShape: accumulators, and fragment vectors of 16 bytes by element type") {
  CHECK(RegBlock<8, 8>::accumulators == 64);
  using F = GemmShape<128, 128, RegBlock<8, 8>, 8>;
  CHECK(F::vector_elems == 4);
  CHECK(F::vector_m == 4);
  CHECK(F::groups_m == 2);
  using D = GemmShape<128, 128, RegBlock<8, 8>, 8, 4, 3, double>;
  CHECK(D::vector_elems == 2);
  CHECK(D::vector_m == 2);
  CHECK(D::groups_m == 4);
  using Small = GemmShape<32, 64, RegBlock<1, 2>, 8, 8, 2>;
  CHECK(Small::vector_m == 1);
  CHECK(Small::vector_n == 2);
  CHECK(GemmShape<128, 256, RegBlock<8, 16>, 8>::groups_n == 4);
  CHECK(GemmShape<64, 128, RegBlock<4, 16>, 8, 4, 3, double>::groups_n == 8);
  // Padding: the row stride is bank_row_elems / fill_k_run elements mod bank_row_elems.
  CHECK(F::bank_row_elems == 32);
  CHECK(D::bank_row_elems == 16);
  CHECK(F::TileA::layout::row_stride % 32 == 4);
  CHECK(D::TileA::layout::row_stride % 16 == 2);
  CHECK(GemmShape<64, 64, RegBlock<4, 4>, 4, 4, 2, double>::TileA::layout::row_stride % 16 == 4);
}

TEST_CASE("GemmShape: derived sizes, a map that covers the tile once, conflict-free fragments") {
  check_shape<GemmShape<128, 128, RegBlock<8, 8>, 8>>();         // 8 warps of 32 x 64
  check_shape<GemmShape<256, 128, RegBlock<8, 16>, 8, 8, 3>>();  // 8 warps of 64 x 64
  check_shape<GemmShape<64, 64, RegBlock<4, 4>, 16, 4, 2>>();
  check_shape<GemmShape<32, 64, RegBlock<1, 2>, 8, 8, 2>>();  // the course's 1 x 2 blocking
  check_shape<GemmShape<128, 32, RegBlock<4, 1>, 8, 32, 4>>();
}

TEST_CASE("GemmShape<..., double>: derived sizes, a map that covers the tile once, conflict-free fills and fragments") {
  check_shape<GemmShape<128, 64, RegBlock<4, 8>, 8, 4, 3, double>>();   // GemmPolicyLargeF64
  check_shape<GemmShape<64, 64, RegBlock<4, 8>, 8, 4, 3, double>>();    // GemmPolicyMediumF64
  check_shape<GemmShape<32, 64, RegBlock<4, 4>, 16, 4, 3, double>>();   // GemmPolicySmallF64
  check_shape<GemmShape<64, 64, RegBlock<4, 4>, 8, 4, 3, double>>();    // the tests' tiled_gemm
  check_shape<GemmShape<128, 128, RegBlock<8, 8>, 8, 4, 2, double>>();  // 8 x 8 doubles, 2 stages
  check_shape<GemmShape<64, 64, RegBlock<4, 4>, 4, 4, 2, double>>();    // TK = 4: 4-row scatter runs
  check_shape<GemmShape<32, 64, RegBlock<1, 2>, 8, 8, 2, double>>();    // 1 x 2: 8-byte B fragments
  check_shape<GemmShape<64, 32, RegBlock<2, 1>, 2, 4, 2, double>>();    // TK = 2, single-double B fragments
}

// GemmMath::mma16 on 16-bit elements: K-major rows (TK x L) and K-contiguous rows (L x TK,
// TK + 8 elements) each an odd number of 16-byte chunks, the stage bytes the larger of the two
// layouts per operand, and the K-contiguous fills of 16-byte vectors covering each tile once
// with every 8-lane phase on 8 different 16-byte bank groups.
template <class Shape>
void check_mma16_shape() {
  using T = typename Shape::TileA::value_type;
  static_assert(sizeof(T) == 2 && Shape::mma16_math && Shape::vector_elems == 8);
  auto odd_chunks = [](int elems) { return elems * 2 % 16 == 0 && elems * 2 / 16 % 2 == 1; };
  CHECK(odd_chunks(Shape::TileA::layout::row_stride));
  CHECK(odd_chunks(Shape::TileB::layout::row_stride));
  CHECK(Shape::TileA::layout::row_stride == Shape::tile_m + Shape::operand_pad(Shape::tile_m));
  CHECK(Shape::TileAk::layout::row_stride == Shape::tile_k + 8);
  CHECK(odd_chunks(Shape::TileAk::layout::row_stride));
  const auto elems = [](int l) {
    return std::max(Shape::tile_k * (l + Shape::operand_pad(l)), l * (Shape::tile_k + 8));
  };
  CHECK(Shape::smem_bytes ==
        static_cast<std::size_t>(Shape::stages) * (elems(Shape::tile_m) + elems(Shape::tile_n)) * sizeof(T));
  check_k_rows<Shape, Shape::tile_m, 8>();
  check_k_rows<Shape, Shape::tile_n, 8>();
}

TEST_CASE("GemmShape on 16-bit elements (mma16): padded rows, stage bytes, K-contiguous fills") {
  // The launcher's fallback and the in-kernel tests' configurations.
  check_mma16_shape<GemmShape<128, 128, RegBlock<16, 8>, 32, 4, 3, __half>>();
  check_mma16_shape<GemmShape<64, 64, RegBlock<4, 4>, 16, 4, 3, __nv_bfloat16>>();
  check_mma16_shape<GemmShape<64, 64, RegBlock<8, 2>, 16, 8, 3, __half>>();
  check_mma16_shape<GemmShape<64, 128, RegBlock<8, 8>, 64, 4, 2, __nv_bfloat16>>();  // TK = 64: rows of 9 chunks
}

TEST_CASE("the default GEMM policies' shared memory and shapes") {
  // sm_75 gives a block at most 64 KiB: every float default but the 4-stage 128 x 128 one
  // (which the launcher replaces by its 3-stage twin there) and the vector ones fits.
  constexpr std::size_t sm75 = 64 * 1024;
  CHECK(GemmPolicyLarge::tiled::smem_bytes > sm75);
  CHECK(GemmPolicyLarge3::tiled::smem_bytes <= sm75);
  CHECK(GemmPolicySkinny::tiled::smem_bytes <= sm75);
  CHECK(GemmPolicyMedium::tiled::smem_bytes <= sm75);
  CHECK(GemmPolicySmall::tiled::smem_bytes <= sm75);
  // The vector and huge policies: two GemmPolicyLargeVector blocks (with the driver's 1 KiB
  // each) fit an sm_90 SM (228 KiB) and not an sm_80 one (164 KiB).
  CHECK(2 * (GemmPolicyLargeVector::tiled::smem_bytes + 1024) <= 228 * 1024);
  CHECK(2 * (GemmPolicyLargeVector::tiled::smem_bytes + 1024) > 164 * 1024);
  CHECK(GemmPolicyHuge::tiled::smem_bytes <= GemmPolicyLargeVector::tiled::smem_bytes);
  // The double defaults fit the 48 KiB of static shared memory.
  constexpr std::size_t static_smem = 48 * 1024;
  CHECK(GemmPolicyLargeF64::tiled::smem_bytes <= static_smem);
  CHECK(GemmPolicyMediumF64::tiled::smem_bytes <= static_smem);
  CHECK(GemmPolicySmallF64::tiled::smem_bytes <= static_smem);
  // The named members read as the positional form.
  static_assert(std::is_same_v<GemmPolicySkinny::tiled, TiledGemm<64, 128, RegBlock<8, 8>, 16, 4, 3>>);
  static_assert(std::is_same_v<GemmPolicyHuge::tiled, TiledGemm<256, 128, RegBlock<16, 8>, 16, 4, 3>>);
  static_assert(GemmPolicyHuge::max_split_k == 1 && GemmPolicyHuge::min_blocks_per_sm == 1);
  static_assert(
      std::is_same_v<GemmPolicy<128, 64, RegBlock<4, 8>, 8, 4, 3, 2, 8, 16, double>::tiled, GemmPolicyLargeF64::tiled>);
  check_shape<GemmPolicyLarge::tiled::shape>();
  check_shape<GemmPolicyLargeVector::tiled::shape>();
  check_shape<GemmPolicyHuge::tiled::shape>();
  check_shape<GemmPolicySkinny::tiled::shape>();
  check_shape<GemmPolicyMedium::tiled::shape>();
  check_shape<GemmPolicySmall::tiled::shape>();
}

namespace {
struct Mine : GemmPolicyDefaults<double> {
  static constexpr int tile_m = 64, tile_n = 32, tile_k = 16;
  using reg_block = RegBlock<4, 2>;
};
}  // namespace

TEST_CASE("a policy of named members: defaults from GemmPolicyDefaults, the rest as set") {
  using P = gemm_policy_t<Mine>;
  static_assert(std::is_same_v<P, GemmPolicyOf<Mine>> && std::is_same_v<gemm_policy_t<P>, P>);
  static_assert(is_gemm_policy_v<Mine> && is_gemm_policy_v<P> && !is_gemm_policy_v<int>);
  static_assert(std::is_same_v<P::tiled, TiledGemm<64, 32, RegBlock<4, 2>, 16, 4, 3, double>>);
  CHECK(P::max_split_k == 16);
  CHECK(P::group_m == 8);
  CHECK(P::min_blocks_per_sm == 1);
  CHECK(P::tiled::threads == 256);
}

TEST_CASE("GemmShape with tensor-core math: fills and fragment loads conflict-free, MMA tiles covering C") {
  using tilecraft::GemmMath;
  check_tensor_shape<GemmShape<64, 64, RegBlock<4, 4>, 8, 4, 3, float, GemmMath::tf32>>();       // the tests'
  check_tensor_shape<GemmShape<128, 128, RegBlock<8, 8>, 16, 4, 3, float, GemmMath::tf32x3>>();  // 32 x 64 warps
  check_tensor_shape<GemmShape<128, 256, RegBlock<8, 16>, 32, 8, 3, float, GemmMath::tf32>>();   // 64 x 64 warps
  check_tensor_shape<GemmShape<128, 64, RegBlock<8, 8>, 32, 4, 3, float, GemmMath::tf32x3>>();   // 4 warps, K 32
}
