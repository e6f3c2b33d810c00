// Layout policies: every element has its own slot inside the storage, rows stay rows, and
// carve plans are aligned and disjoint.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>

#include <tilecraft/memory/carve.cuh>
#include <tilecraft/memory/layout.cuh>
#include <tilecraft/memory/shared_tile.cuh>

using namespace tilecraft;

template <class Tile>
void check_layout_is_a_bijection_into_rows() {
  std::set<int> used;
  for (int r = 0; r < Tile::rows; ++r) {
    for (int c = 0; c < Tile::cols; ++c) {
      const int o = Tile::offset(r, c);
      REQUIRE(o >= 0);
      REQUIRE(o < Tile::storage_elems);
      CHECK(used.insert(o).second);
      // An element never leaves its row's storage (so row-wise copies stay in bounds).
      CHECK(o / Tile::layout::row_stride == r);
    }
  }
  // Vector runs promised by vector_bytes are contiguous.
  constexpr int v = Tile::vector_bytes / static_cast<int>(sizeof(typename Tile::value_type));
  if constexpr (v > 1) {
    for (int r = 0; r < Tile::rows; ++r) {
      for (int c = 0; c + v <= Tile::cols; c += v) {
        CHECK((Tile::offset(r, c) * sizeof(typename Tile::value_type)) % Tile::vector_bytes == 0);
        for (int j = 1; j < v; ++j) CHECK(Tile::offset(r, c + j) == Tile::offset(r, c) + j);
      }
    }
  }
}

TEST_CASE_TEMPLATE("layouts map every element to its own slot", Tile, SharedTile<float, 32, 0>,
                   SharedTile<float, 32, 1>, SharedTile<double, 31, 3>, SharedMatrix<char, 7, 100, Padded<5>>,
                   SharedMatrix<float, 64, 32, Swizzled<>>, SharedMatrix<float, 16, 64, Swizzled<16>>,
                   SharedMatrix<double, 8, 16, Swizzled<>>, SharedMatrix<short, 4, 8, Swizzled<>>,
                   SharedMatrix<float, 3, 128, Swizzled<8>>, SharedMatrix<float, 64, 64, Swizzled<16, 4>>,
                   SharedMatrix<double, 32, 32, Swizzled<16, 2>>, SharedMatrix<short, 24, 64, Swizzled<4, 8>>) {
  check_layout_is_a_bijection_into_rows<Tile>();
}

TEST_CASE("SharedTile is the padded square SharedMatrix and is trivial") {
  static_assert(std::is_same_v<SharedTile<float, 16, 1>, SharedMatrix<float, 16, 16, Padded<1>>>);
  static_assert(std::is_trivial_v<SharedTile<float, 32, 1>>);
  static_assert(std::is_trivial_v<SharedMatrix<double, 8, 64, Swizzled<>>>);
  static_assert(alignof(SharedTile<char, 3, 1>) == 16);
  union Reuse {
    SharedTile<float, 32, 1> a;
    SharedMatrix<double, 16, 16, Swizzled<>> b;
  };
  static_assert(sizeof(Reuse) == SharedTile<float, 32, 1>::bytes);
}

TEST_CASE("carve places objects aligned, in order, without overlap") {
  using A = SharedMatrix<char, 3, 5>;  // 15 bytes
  using B = SharedTile<double, 8, 1>;  // 576 bytes
  struct alignas(64) C {
    int x[3];
  };
  using Plan = SharedCarve<A, B, C, A>;
  static_assert(Plan::offset(0) == 0);
  static_assert(Plan::offset(1) == 16);
  static_assert(Plan::offset(2) == tilecraft::round_up<std::size_t>(16 + B::bytes, 64));
  static_assert(Plan::offset(3) == Plan::offset(2) + sizeof(C));
  static_assert(Plan::bytes == Plan::offset(3) + sizeof(A));
  // The buffer must be aligned as the most demanding type (C's 64), not only to 16.
  static_assert(Plan::alignment == 64 && SharedCarve<A, B>::alignment == 16);
  for (std::size_t i = 0; i < 4; ++i) CHECK(Plan::offset(i) % 16 == 0);
}
