// The bank-conflict model against the hardware rules, on the classic cases and on the
// accesses tilecraft's own primitives make. Host-only: compiled by g++.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <stdexcept>

#include <tilecraft/memory/bank_model.cuh>
#include <tilecraft/memory/shared_tile.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include "test_util.cuh"

using namespace tilecraft;
using bank::Coord;

// An independent brute-force restatement of the rule, used to cross-check random patterns:
// per phase, the worst bank's number of distinct 4-byte words.
static int brute_force(const long long* addr, int bytes) {
  const int phases = bytes <= 4 ? 1 : bytes / 4;
  const int per = 32 / phases;
  const int words = bytes <= 4 ? 1 : bytes / 4;
  int total = 0;
  for (int p = 0; p < phases; ++p) {
    int worst = 0;
    for (int b = 0; b < 32; ++b) {
      long long seen[128];
      int n = 0;
      for (int l = p * per; l < (p + 1) * per; ++l) {
        if (addr[l] < 0) continue;
        for (int w = 0; w < words; ++w) {
          const long long word = addr[l] / 4 + w;
          if (word % 32 != b) continue;
          bool dup = false;
          for (int k = 0; k < n; ++k) dup = dup || seen[k] == word;
          if (!dup) seen[n++] = word;
        }
      }
      worst = n > worst ? n : worst;
    }
    total += worst;
  }
  return total;
}

TEST_CASE("classic 32x32 float tile: columns conflict unless padded or swizzled") {
  static_assert(bank::column_wavefronts<SharedTile<float, 32, 0>>() == 32);
  static_assert(bank::column_wavefronts<SharedTile<float, 32, 1>>() == 1);
  static_assert(bank::column_wavefronts<SharedMatrix<float, 32, 32, Swizzled<>>>() == 1);
  static_assert(bank::row_wavefronts<SharedTile<float, 32, 0>>() == 1);
  static_assert(bank::row_wavefronts<SharedTile<float, 32, 1>>() == 1);
  static_assert(bank::row_wavefronts<SharedMatrix<float, 32, 32, Swizzled<>>>() == 1);
  for (int c = 0; c < 32; ++c) {
    CHECK(bank::column_wavefronts<SharedTile<float, 32, 0>>(c) == 32);
    CHECK(bank::column_wavefronts<SharedTile<float, 32, 1>>(c) == 1);
    CHECK(bank::column_wavefronts<SharedMatrix<float, 32, 32, Swizzled<>>>(c) == 1);
  }
  // Pad 2 floats: rows two banks apart, so lanes r and r + 16 collide.
  CHECK(bank::column_wavefronts<SharedTile<float, 32, 2>>() == 2);
  // Rows under 128 bytes: the element swizzle repeats every row_chunks rows, so a 32-row column
  // meets each bank 32 / 16 = 2 or 32 / 8 = 4 times; one float of padding still spreads it.
  CHECK(bank::column_wavefronts<SharedMatrix<float, 32, 16, Swizzled<>>>() == 2);
  CHECK(bank::column_wavefronts<SharedMatrix<float, 32, 8, Swizzled<>>>() == 4);
  CHECK(bank::column_wavefronts<SharedMatrix<float, 32, 16, Padded<1>>>() == 1);
  CHECK(bank::column_wavefronts<SharedMatrix<float, 32, 8, Padded<1>>>() == 1);
}

TEST_CASE("strides, broadcast and sub-word accesses") {
  // Stride-2 float row read: two distinct words in every even bank.
  CHECK(bank::row_wavefronts<SharedMatrix<float, 1, 64>, 2>() == 2);
  CHECK(bank::row_wavefronts<SharedMatrix<float, 1, 128>, 4>() == 4);
  CHECK(bank::row_wavefronts<SharedMatrix<float, 1, 1024>, 32>() == 32);
  // Odd strides are conflict-free for 4-byte words.
  CHECK(bank::row_wavefronts<SharedMatrix<float, 1, 128>, 3>() == 1);
  CHECK(bank::broadcast_wavefronts<SharedTile<float, 32, 0>>() == 1);
  // All lanes in one word: a multicast, one wavefront.
  CHECK(bank::wavefronts([](int) { return 8LL; }, 4) == 1);
  // Bytes and halves: 32 lanes reading 32 consecutive chars share 8 words.
  CHECK(bank::row_wavefronts<SharedMatrix<char, 1, 32>>() == 1);
  CHECK(bank::row_wavefronts<SharedMatrix<short, 1, 64>, 2>() == 1);
  // Nobody active: nothing to do.
  CHECK(bank::wavefronts([](int) { return -1LL; }, 4) == 0);
}

TEST_CASE("8- and 16-byte accesses are served in half- and quarter-warp phases") {
  CHECK(bank::ideal_wavefronts(8) == 2);
  CHECK(bank::ideal_wavefronts(16) == 4);
  // Consecutive doubles: 256 bytes, two conflict-free phases.
  CHECK(bank::row_wavefronts<SharedMatrix<double, 1, 32>>() == 2);
  // Column of a 32x32 double tile: each half-warp puts 16 words in banks 0 and 1.
  CHECK(bank::column_wavefronts<SharedTile<double, 32, 0>>() == 32);
  CHECK(bank::column_wavefronts<SharedTile<double, 32, 1>>() == 2);
  CHECK(bank::column_wavefronts<SharedMatrix<double, 32, 32, Swizzled<>>>() == 2);
  // 16-byte vectors along a row: four conflict-free quarter-warp phases.
  CHECK(bank::tile_wavefronts<SharedMatrix<float, 1, 128>>([](int l) { return Coord{0, 4 * l}; }, 16) == 4);
  // Stride-2 vectors: each quarter-warp spans 256 bytes, two wavefronts each.
  CHECK(bank::tile_wavefronts<SharedMatrix<float, 1, 256>>([](int l) { return Coord{0, 8 * l}; }, 16) == 8);
  // A column of 16-byte chunks (rows 128 B apart) in an unswizzled tile: 8 lanes in one bank group.
  CHECK(bank::tile_wavefronts<SharedMatrix<float, 32, 32>>([](int l) { return Coord{l, 0}; }, 16) == 32);
  // The 16-byte-chunk swizzle spreads them across the row.
  CHECK(bank::tile_wavefronts<SharedMatrix<float, 32, 32, Swizzled<16>>>([](int l) { return Coord{l, 0}; }, 16) == 4);
}

TEST_CASE("access widths and ldmatrix counts the hardware has not are refused at run time too") {
  // (At compile time they fail the constant evaluation: compile_fail.bank_model_bad_*.)
  auto by_lane = [](int lane) -> long long { return 16ll * lane; };
  for (int bytes : {0, 3, 5, 12, 32, -4}) {
    CHECK_THROWS_AS(bank::wavefronts(by_lane, bytes), std::invalid_argument);
  }
  for (int bytes : {1, 2, 4, 8, 16}) CHECK(bank::wavefronts(by_lane, bytes) >= 1);
  for (int matrices : {0, 3, 8}) {
    CHECK_THROWS_AS(bank::ldmatrix_wavefronts(by_lane, matrices), std::invalid_argument);
  }
  for (int matrices : {1, 2, 4}) CHECK(bank::ldmatrix_wavefronts(by_lane, matrices) == matrices);
}

TEST_CASE("the model agrees with a brute-force count on random warp patterns") {
  auto g = tilecraft::test::rng(1);  // the printed seed (TILECRAFT_TEST_SEED replays it)
  for (int bytes : {1, 2, 4, 8, 16}) {
    for (int trial = 0; trial < 300; ++trial) {
      long long addr[32];
      std::uniform_int_distribution<int> span(1, 64);
      const int words = span(g) * 32;
      std::uniform_int_distribution<long long> pick(0, words - 1);
      std::bernoulli_distribution active(0.9);
      for (auto& a : addr) a = active(g) ? (pick(g) * 4 / bytes) * bytes : -1;
      CHECK(bank::wavefronts([&](int l) { return addr[l]; }, bytes) == brute_force(addr, bytes));
    }
  }
}

TEST_CASE("copy_tile's own shared-memory accesses") {
  // Padded by one element, both the fill and the transposed drain are conflict-free.
  static_assert(copy_tile_conflict_factor<SharedTile<float, 32, 1>>() == 1);
  static_assert(copy_tile_conflict_factor<TransposedView<const SharedTile<float, 32, 1>>>() == 1);
  static_assert(copy_tile_conflict_factor<TransposedView<const SharedTile<float, 64, 1>>>() == 1);
  static_assert(copy_tile_conflict_factor<TransposedView<const SharedTile<double, 32, 1>>>() == 1);
  static_assert(copy_tile_conflict_factor<SharedTile<double, 32, 1>>() == 1);
  // Unpadded tiles fill conflict-free with 16-byte vectors but drain a column: 32-way for
  // floats; the element swizzle fixes the drain.
  static_assert(copy_tile_conflict_factor<SharedTile<float, 32, 0>>() == 1);
  CHECK(copy_tile_conflict_factor<TransposedView<const SharedTile<float, 32, 0>>>() == 8);
  static_assert(copy_tile_conflict_factor<TransposedView<const SharedMatrix<float, 32, 32, Swizzled<>>>>() == 1);
  // A warp that fills fewer phases than a whole one: 8 rows of one 16-byte vector, 128 bytes
  // apart, all in the first phase of 8 lanes and all in banks 0-3: 8 wavefronts where 1 would
  // do (not 8 over the 4 of a whole warp's 16-byte access).
  CHECK(copy_tile_conflict_factor<SharedMatrix<float, 8, 4, Padded<28>>>() == 8);
  CHECK(copy_tile_conflict_factor<SharedMatrix<float, 8, 4, Padded<1>>>() == 1);
  // 40 vectors, unpadded rows of 16 bytes: a whole warp, then 8 lanes in one phase, each phase
  // 128 contiguous bytes (conflict-free).
  CHECK(copy_tile_conflict_factor<SharedMatrix<float, 40, 4>>() == 1);
}

TEST_CASE("copy_tile's accesses with one warp instruction per row (TileMapping::rows)") {
  constexpr auto rows = TileMapping::rows;
  // The 8-byte transpose default: 256-byte rows, 8 bytes a lane, both directions conflict-free.
  static_assert(copy_tile_conflict_factor<SharedTile<double, 32, 1>, rows>() == 1);
  static_assert(copy_tile_conflict_factor<TransposedView<const SharedTile<double, 32, 1>>, rows>() == 1);
  static_assert(copy_tile_conflict_factor<SharedTile<float, 32, 1>, rows>() == 1);
  static_assert(copy_tile_conflict_factor<TransposedView<const SharedTile<float, 32, 1>>, rows>() == 1);
  // A 64-float padded row, 8 bytes a lane stored as two words: lanes l and l + 16 meet in one
  // bank (2 * 16 words apart), so each store takes two wavefronts; the drain likewise.
  CHECK(copy_tile_conflict_factor<SharedTile<float, 64, 1>, rows>() == 2);
  CHECK(copy_tile_conflict_factor<TransposedView<const SharedTile<float, 64, 1>>, rows>() == 2);
  // Unpadded, the row fill is plain 8-byte vectors: conflict-free.
  static_assert(copy_tile_conflict_factor<SharedTile<float, 64, 0>, rows>() == 1);
  using Shape = detail::CopyShapeOf<SharedTile<double, 32, 1>, rows>;
  static_assert(Shape::vector_bytes == 8 && Shape::segment_vectors == 32);
  static_assert(Shape::coord(33).row == 1 && Shape::coord(33).col == 1);
}

TEST_CASE("whole-row fills and register-transposed block drains (the 4-byte transpose default)") {
  constexpr auto wide = TileMapping::wide;
  constexpr auto blocks = TileMapping::transposed_blocks;
  using F = SharedMatrix<float, 64, 64, Swizzled<16, 4>>;
  using D = SharedMatrix<double, 32, 32, Swizzled<16, 2>>;
  // Fill: 16-byte stores, each quarter warp one 128-byte run of a row: XOR-permuted chunks
  // stay inside their 128 bytes, so every phase is conflict-free.
  static_assert(copy_tile_conflict_factor<F, wide>() == 1);
  static_assert(copy_tile_conflict_factor<D, wide>() == 1);
  // Drain: a quarter warp reads 16 bytes from tile rows 4m + k (m = 0 ... 7; 2m + k for
  // doubles). With RowGroup = V those rows carry 8 different XOR values: conflict-free.
  static_assert(copy_tile_conflict_factor<TransposedView<const F>, blocks>() == 1);
  static_assert(copy_tile_conflict_factor<TransposedView<const D>, blocks>() == 1);
  // The same rows under a per-row swizzle (RowGroup 1) see only 2 (floats: rows 4m + k give
  // (4m + k) mod 8 in {k, k + 4}) or 4 (doubles) XOR values: 4- and 2-way conflicts.
  CHECK(copy_tile_conflict_factor<TransposedView<const SharedMatrix<float, 64, 64, Swizzled<16>>>, blocks>() == 4);
  CHECK(copy_tile_conflict_factor<TransposedView<const SharedMatrix<double, 32, 32, Swizzled<16>>>, blocks>() == 2);
  // Unswizzled 256-byte rows put every such chunk in the same four banks: 8-way.
  CHECK(copy_tile_conflict_factor<TransposedView<const SharedMatrix<float, 64, 64, Padded<0>>>, blocks>() == 8);
  // The wide mapping walks whole rows: vector 16 of a 64-float row starts the next row.
  using Shape = detail::CopyShapeOf<F, wide>;
  static_assert(Shape::vector_bytes == 16 && Shape::segment_vectors == 16);
  static_assert(Shape::coord(17).row == 1 && Shape::coord(17).col == 4);
  // Its per-thread offsets are compile-time steps when the block covers whole rows.
  static_assert(Shape::separable<128> && Shape::separable<64> && !Shape::separable<96>);
}

TEST_CASE("tile sizes and offsets") {
  using T1 = SharedTile<float, 32, 1>;
  static_assert(T1::bytes == 32 * 33 * 4);
  static_assert(T1::offset(1, 0) == 33 && T1::offset(31, 31) == 31 * 33 + 31);
  static_assert(SharedMatrix<double, 16, 64, Swizzled<>>::bytes == 16 * 64 * 8);
  static_assert(T1::vector_bytes == 4);
  static_assert(SharedTile<float, 32, 0>::vector_bytes == 16);
  static_assert(SharedTile<float, 32, 4>::vector_bytes == 16);
  static_assert(SharedMatrix<float, 8, 32, Swizzled<16>>::vector_bytes == 16);
  static_assert(SharedMatrix<float, 8, 32, Swizzled<>>::vector_bytes == 4);
}

TEST_CASE("m16n8k8 TF32 fragments read with 4-byte loads from K-major tiles") {
  // Lane (g, t) reads word t * L + g (plus the origin's offset) of a tile with rows of L words.
  // L = 128 (a K-major 128-wide tile, unpadded): the four rows fall on the same 8 banks: 4-way.
  CHECK(bank::fragment_tf32_wavefronts<SharedMatrix<float, 8, 128>>() == 4);
  // L = 132 (the GEMM's fill padding for K-runs of 8): t * 4 + g meets itself (t = 1, g = 0 and
  // t = 0, g = 4): banks 0 ... 19, words of 2 rows in 12 of them: 2-way.
  CHECK(bank::fragment_tf32_wavefronts<SharedMatrix<float, 8, 128, Padded<4>>>() == 2);
  // L = 136: t * 8 + g covers banks 0 ... 31 once: conflict-free at every fragment origin.
  using Pad8 = SharedMatrix<float, 8, 128, Padded<8>>;
  for (int k0 : {0, 4}) {
    for (int mn0 = 0; mn0 < 128; mn0 += 8) CHECK(bank::fragment_tf32_wavefronts<Pad8>(k0, mn0) == 1);
  }
  // L = 40 (32 + 8): the same, for a narrow tile.
  CHECK(bank::fragment_tf32_wavefronts<SharedMatrix<float, 8, 32, Padded<8>>>(4, 24) == 1);
}

TEST_CASE("m16n8k8 TF32 fragments read through a TransposedView of a K-contiguous tile") {
  // An L x TK tile (K contiguous) read as K x L: lane (g, t) reads word g * S + t, S = TK + pad.
  // S = 16: g * 16 falls on two bank groups of 4: 4-way.
  CHECK(bank::fragment_tf32_wavefronts<TransposedView<const SharedMatrix<float, 128, 16>>>() == 4);
  // S = 24: g * 24 (mod 32) repeats after 4 rows: 2-way.
  CHECK(bank::fragment_tf32_wavefronts<TransposedView<const SharedMatrix<float, 128, 16, Padded<8>>>>() == 2);
  // S = 20 or 36 (4 mod 8): g * S + t covers banks 0 ... 31 once, at every fragment origin.
  using Pad4 = TransposedView<const SharedMatrix<float, 128, 16, Padded<4>>>;
  for (int k0 : {0, 4, 8, 12}) {
    for (int mn0 = 0; mn0 < 128; mn0 += 8) CHECK(bank::fragment_tf32_wavefronts<Pad4>(k0, mn0) == 1);
  }
  CHECK(bank::fragment_tf32_wavefronts<TransposedView<const SharedMatrix<float, 64, 32, Padded<4>>>>(28, 56) == 1);
}

TEST_CASE("ldmatrix: one phase of 8 rows of 16 bytes per matrix") {
  // 2-byte elements (half and bfloat16 have the size of std::uint16_t; the model needs only it).
  using Plain = SharedMatrix<std::uint16_t, 16, 64>;                 // 128-byte rows: every row in one bank group
  using Pad16 = SharedMatrix<std::uint16_t, 16, 64, Padded<8>>;      // 144-byte rows
  using Swz = SharedMatrix<std::uint16_t, 16, 64, Swizzled<16>>;     // chunk k of row r at k ^ (r % 8)
  using Narrow = SharedMatrix<std::uint16_t, 16, 32, Swizzled<16>>;  // 64-byte rows: only 4 chunk positions
  // The A fragment of m16n8k16: four matrices, each 8 rows of one column of chunks.
  CHECK(bank::fragment_a_ldmatrix_wavefronts<Plain>() == 32);
  CHECK(bank::fragment_a_ldmatrix_wavefronts<Pad16>() == 4);
  CHECK(bank::fragment_a_ldmatrix_wavefronts<Swz>() == 4);
  CHECK(bank::fragment_a_ldmatrix_wavefronts<Swz>(8, 16) == 4);
  // 64-byte rows swizzled over 4 chunk positions: rows r and r + 4 of a matrix meet.
  CHECK(bank::fragment_a_ldmatrix_wavefronts<Narrow>() == 8);
  // The B fragment (.x2.trans) of a K-major tile of 64 columns: 8 wavefronts a matrix plain,
  // 1 swizzled, at any 16 x 8 block.
  using PlainB = SharedMatrix<std::uint16_t, 32, 64>;
  using SwzB = SharedMatrix<std::uint16_t, 32, 64, Swizzled<16>>;
  CHECK(bank::fragment_b_ldmatrix_wavefronts<PlainB>() == 16);
  for (int k0 : {0, 16}) {
    for (int n0 = 0; n0 < 64; n0 += 8) CHECK(bank::fragment_b_ldmatrix_wavefronts<SwzB>(k0, n0) == 2);
  }
  // .x1 and .x2 read the first 8 and 16 lanes' rows only.
  auto rows = [](int lane) { return Coord{lane % 8, (lane / 8) * 8}; };
  CHECK(bank::tile_ldmatrix_wavefronts<Swz>(rows, 1) == 1);
  CHECK(bank::tile_ldmatrix_wavefronts<Swz>(rows, 2) == 2);
  CHECK(bank::tile_ldmatrix_wavefronts<Plain>(rows, 1) == 8);
  // Against the brute-force count of 16-byte phases, with the lanes past 8 * matrices inactive.
  auto g = tilecraft::test::rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const int matrices = 1 << (trial % 3);
    long long addr[32];
    for (long long& a : addr) a = static_cast<long long>(g() % 512) * 16;
    long long active[32];
    for (int l = 0; l < 32; ++l) active[l] = l < 8 * matrices ? addr[l] : -1;
    CHECK(bank::ldmatrix_wavefronts([&](int lane) { return addr[lane]; }, matrices) == brute_force(active, 16));
  }
}

// The fragment models against the brute-force count, over addresses built again from the PTX
// ISA's fragment layouts and, for a TransposedView, from its stored tile (element (r, c) of the
// view is (c, r) of the tile): every fragment origin of padded, swizzled and plain layouts.
template <class Tile>
long long stored_address(int r, int c) {
  using T = typename Tile::value_type;
  if constexpr (is_transposed_view_v<Tile>) {
    return static_cast<long long>(Tile::tile_type::offset(c, r)) * static_cast<long long>(sizeof(T));
  } else {
    return static_cast<long long>(Tile::offset(r, c)) * static_cast<long long>(sizeof(T));
  }
}

// m16n8k8 TF32: lane (g, t) reads element (k0 + t, mn0 + g) of a K-major tile or view.
template <class Tile>
void check_tf32_fragments() {
  for (int k0 = 0; k0 + 4 <= Tile::rows; k0 += 4) {
    for (int mn0 = 0; mn0 + 8 <= Tile::cols; mn0 += 8) {
      long long addr[32];
      for (int lane = 0; lane < 32; ++lane) addr[lane] = stored_address<Tile>(k0 + lane % 4, mn0 + lane / 4);
      CHECK(bank::fragment_tf32_wavefronts<Tile>(k0, mn0) == brute_force(addr, 4));
    }
  }
}

// ldmatrix, one 16-byte row per lane and one 8-lane phase per matrix (brute_force's 16-byte
// phases): .x4 for the m16n8k16 A fragment (rows row0 + lane % 16, columns col0 and col0 + 8),
// .x2.trans for the B fragment (rows k0 + lane for lanes 0-15, the rest inactive).
template <class Tile>
void check_ldmatrix_fragments() {
  for (int r0 = 0; r0 + 16 <= Tile::rows; r0 += 8) {
    for (int c0 = 0; c0 + 8 <= Tile::cols; c0 += 8) {
      long long addr[32];
      if (c0 + 16 <= Tile::cols) {
        for (int lane = 0; lane < 32; ++lane) addr[lane] = stored_address<Tile>(r0 + lane % 16, c0 + (lane / 16) * 8);
        CHECK(bank::fragment_a_ldmatrix_wavefronts<Tile>(r0, c0) == brute_force(addr, 16));
      }
      for (int lane = 0; lane < 32; ++lane) addr[lane] = lane < 16 ? stored_address<Tile>(r0 + lane, c0) : -1;
      CHECK(bank::fragment_b_ldmatrix_wavefronts<Tile>(r0, c0) == brute_force(addr, 16));
    }
  }
}

TEST_CASE("the fragment models equal a brute-force count of the fragments' addresses at every origin") {
  check_tf32_fragments<SharedMatrix<float, 8, 128>>();
  check_tf32_fragments<SharedMatrix<float, 8, 128, Padded<4>>>();
  check_tf32_fragments<SharedMatrix<float, 16, 64, Padded<8>>>();
  check_tf32_fragments<SharedMatrix<float, 16, 64, Swizzled<>>>();
  check_tf32_fragments<SharedMatrix<float, 16, 64, Swizzled<16>>>();
  check_tf32_fragments<TransposedView<const SharedMatrix<float, 128, 16>>>();
  check_tf32_fragments<TransposedView<const SharedMatrix<float, 64, 16, Padded<4>>>>();
  check_tf32_fragments<TransposedView<const SharedMatrix<float, 64, 32, Padded<8>>>>();
  check_tf32_fragments<TransposedView<const SharedMatrix<float, 64, 32, Swizzled<16>>>>();
  check_ldmatrix_fragments<SharedMatrix<std::uint16_t, 32, 64>>();
  check_ldmatrix_fragments<SharedMatrix<std::uint16_t, 32, 64, Padded<8>>>();
  check_ldmatrix_fragments<SharedMatrix<std::uint16_t, 32, 64, Swizzled<16>>>();
  check_ldmatrix_fragments<SharedMatrix<std::uint16_t, 32, 32, Swizzled<16>>>();
  check_ldmatrix_fragments<SharedMatrix<std::uint16_t, 64, 40, Padded<8>>>();
}
