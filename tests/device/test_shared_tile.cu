// SharedMatrix + copy_tile round trips: global -> shared -> global, straight and transposed,
// for every layout policy, element widths 1 to 16 bytes, interior and edge tiles, aligned and
// misaligned sources, against a host reference. Outputs are poisoned first, so elements that
// must not be written are checked too.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <tilecraft/memory/carve.cuh>
#include <tilecraft/memory/shared_tile.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

struct alignas(16) Quad16 {
  std::int32_t v[4];
};

template <class Tile, int Threads, class Copy, class Drain>
__global__ void round_trip_kernel(MatrixRef<const typename Tile::value_type> in,
                                  MatrixRef<typename Tile::value_type> out, MatrixRef<typename Tile::value_type> out_t,
                                  typename Tile::value_type* dump, std::int64_t r0, std::int64_t c0,
                                  typename Tile::value_type fill) {
  __shared__ Tile tile;
  copy_tile<Threads, Copy>(tile, in, r0, c0, fill);
  __syncthreads();
  for (int i = thread_rank(); i < Tile::rows * Tile::cols; i += block_threads())
    dump[i] = tile(i / Tile::cols, i % Tile::cols);
  copy_tile<Threads, Copy>(out, r0, c0, tile);
  copy_tile<Threads, Drain>(out_t, c0, r0, transposed(tile));
}

using tilecraft::test::make_value;
using tilecraft::test::same_bits;

// One matrix, one tile origin: checks dump (with fill), straight store and transposed store
// (the latter with the Drain policy).
template <class Tile, int Threads, class Copy = TileCopy<>, class Drain = Copy>
void check_round_trip(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t offset, std::int64_t r0,
                      std::int64_t c0, std::uint64_t salt) {
  using T = typename Tile::value_type;
  CAPTURE(rows);
  CAPTURE(cols);
  CAPTURE(ld);
  CAPTURE(offset);
  CAPTURE(r0);
  CAPTURE(c0);
  auto g = tilecraft::test::rng(salt);
  const std::size_t span = static_cast<std::size_t>(offset + rows * ld);
  std::vector<T> host(span);
  for (auto& x : host) x = make_value<T>(g());
  const T fill = make_value<T>(g());

  DeviceBuffer<T> in(host);
  const std::int64_t ld_t = rows + 3;  // transposed output: cols x rows, padded leading dimension
  DeviceBuffer<T> out(span), out_t(static_cast<std::size_t>(offset + cols * ld_t)),
      dump(static_cast<std::size_t>(Tile::rows * Tile::cols));
  out.poison();
  out_t.poison();
  dump.poison();

  // Launch one warp more than the copy uses: ranks >= Threads must stay out of the copy.
  round_trip_kernel<Tile, Threads, Copy, Drain><<<1, Threads + 32>>>(
      MatrixRef<const T>{in.get() + offset, rows, cols, ld}, MatrixRef<T>{out.get() + offset, rows, cols, ld},
      MatrixRef<T>{out_t.get() + offset, cols, rows, ld_t}, dump.get(), r0, c0, fill);
  tilecraft::test::sync_and_check();

  const auto h_out = out.download();
  const auto h_out_t = out_t.download();
  const auto h_dump = dump.download();
  const T poison = tilecraft::test::poison_value<T>();
  auto inside_tile = [&](std::int64_t r, std::int64_t c) {
    return r >= r0 && r < r0 + Tile::rows && c >= c0 && c < c0 + Tile::cols;
  };
  int bad = 0;
  for (int r = 0; r < Tile::rows; ++r) {
    for (int c = 0; c < Tile::cols; ++c) {
      const bool in_matrix = r0 + r < rows && c0 + c < cols;
      const T want = in_matrix ? host[static_cast<std::size_t>(offset + (r0 + r) * ld + c0 + c)] : fill;
      bad += !same_bits(h_dump[static_cast<std::size_t>(r * Tile::cols + c)], want);
    }
  }
  CHECK(bad == 0);
  bad = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < ld; ++c) {
      const std::size_t i = static_cast<std::size_t>(offset + r * ld + c);
      const bool written = c < cols && inside_tile(r, c);
      bad += !same_bits(h_out[i], written ? host[i] : poison);
    }
  }
  CHECK(bad == 0);
  bad = 0;
  for (std::int64_t c = 0; c < cols; ++c) {
    for (std::int64_t r = 0; r < ld_t; ++r) {
      const std::size_t i = static_cast<std::size_t>(offset + c * ld_t + r);
      const bool written = r < rows && inside_tile(r, c);
      bad += !same_bits(h_out_t[i], written ? host[static_cast<std::size_t>(offset + r * ld + c)] : poison);
    }
  }
  CHECK(bad == 0);
}

template <class Tile, int Threads, class Copy = TileCopy<>, class Drain = Copy>
void check_tile_everywhere(std::uint64_t salt) {
  // Interior and aligned; partial at the bottom-right; odd leading dimension (no vectors);
  // origin shifted by one element (misaligned); a tile wholly outside (all fill, no writes).
  constexpr std::int64_t R = Tile::rows, C = Tile::cols;
  check_round_trip<Tile, Threads, Copy, Drain>(3 * R, 3 * C, 3 * C + 16, 0, R, C, salt + 1);
  check_round_trip<Tile, Threads, Copy, Drain>(R + R / 2 + 1, C + C / 3 + 1, C + C / 3 + 1, 0, R, C, salt + 2);
  check_round_trip<Tile, Threads, Copy, Drain>(2 * R + 1, 2 * C + 1, 2 * C + 3, 0, 0, 1, salt + 3);
  check_round_trip<Tile, Threads, Copy, Drain>(2 * R, 2 * C, 2 * C, 1, R - 1, C - 1, salt + 4);
  check_round_trip<Tile, Threads, Copy, Drain>(5, 7, 9, 0, 0, 0, salt + 5);
  check_round_trip<Tile, Threads, Copy, Drain>(R, C, C, 0, R, 0, salt + 6);
}

// Each tile type runs the default copy with 128 threads and one more variant, in turn across the
// types, so every variant meets several layouts and element widths (every pair would compile
// 4 kernels a type for the same paths).
template <class Tile, int Variant>
struct Case {
  using tile = Tile;
  static constexpr int variant = Variant;
};

TEST_CASE_TEMPLATE("copy_tile round trips for every layout and element width", C, Case<SharedTile<float, 32, 0>, 0>,
                   Case<SharedTile<float, 32, 1>, 1>, Case<SharedMatrix<float, 64, 32, Swizzled<>>, 2>,
                   Case<SharedMatrix<float, 16, 64, Swizzled<16>>, 0>, Case<SharedTile<double, 32, 1>, 1>,
                   Case<SharedMatrix<double, 8, 16, Swizzled<>>, 2>, Case<SharedMatrix<char, 24, 40, Padded<3>>, 0>,
                   Case<SharedMatrix<short, 33, 17, Padded<1>>, 1>, Case<SharedMatrix<Quad16, 9, 8, Padded<1>>, 2>,
                   Case<SharedMatrix<float, 1, 1>, 0>) {
  using Tile = typename C::tile;
  check_tile_everywhere<Tile, 128>(11);
  if constexpr (C::variant == 0) {
    check_tile_everywhere<Tile, 96>(23);  // a thread count that divides no row
  } else if constexpr (C::variant == 1) {
    // Streaming cache hints change the instructions (ld.global.nc, st.global.cs), not the result.
    check_tile_everywhere<Tile, 128, TileCopy<CacheHint::streaming>>(37);
  } else {
    // Whole rows per consecutive threads: another mapping, the same elements.
    check_tile_everywhere<Tile, 128, TileCopy<CacheHint::normal, TileMapping::wide>>(53);
  }
}

// TileMapping::transposed_blocks: V x V blocks (V = 16 / sizeof(T)) read with 16-byte shared
// loads and transposed in registers; the tile keeps 16-byte chunks. Thread counts that do and
// do not divide the blocks (in turn across the types, as above), interior and edge tiles,
// aligned and misaligned destinations.
TEST_CASE_TEMPLATE("copy_tile of a transposed view with register-transposed blocks", C,
                   Case<SharedMatrix<float, 32, 32, Swizzled<16, 4>>, 0>,
                   Case<SharedMatrix<float, 64, 32, Swizzled<16, 4>>, 1>,
                   Case<SharedMatrix<int, 16, 64, Swizzled<16, 4>>, 2>,
                   Case<SharedMatrix<double, 32, 32, Swizzled<16, 2>>, 0>,
                   Case<SharedMatrix<double, 8, 16, Swizzled<16, 2>>, 1>, Case<SharedMatrix<float, 8, 4, Padded<0>>, 2>,
                   Case<SharedMatrix<long long, 64, 32, Swizzled<16, 2>>, 1>) {
  using Tile = typename C::tile;
  using Wide = TileCopy<CacheHint::normal, TileMapping::wide>;
  using Blocks = TileCopy<CacheHint::normal, TileMapping::transposed_blocks>;
  check_tile_everywhere<Tile, 128, Wide, Blocks>(61);
  if constexpr (C::variant == 0) {
    check_tile_everywhere<Tile, 96, Wide, Blocks>(67);
  } else if constexpr (C::variant == 1) {
    check_tile_everywhere<Tile, 32, Wide, Blocks>(71);
  } else {
    check_tile_everywhere<Tile, 128, Wide, TileCopy<CacheHint::streaming, TileMapping::transposed_blocks>>(73);
  }
}

// TileMapping::rows needs rows (and, for the transposed store, columns) of 32 ... 512 bytes.
TEST_CASE_TEMPLATE("copy_tile with one warp instruction per row", Tile, SharedTile<float, 32, 1>,
                   SharedTile<double, 32, 1>, SharedMatrix<float, 64, 64, Padded<1>>, SharedMatrix<short, 64, 64>,
                   SharedMatrix<double, 64, 32, Swizzled<>>, SharedMatrix<Quad16, 32, 32, Padded<1>>) {
  using Rows = TileCopy<CacheHint::normal, TileMapping::rows>;
  check_tile_everywhere<Tile, 128, Rows>(41);
  check_tile_everywhere<Tile, 96, Rows>(43);
}

__global__ void carve_kernel(int* ok) {
  extern __shared__ __align__(16) unsigned char smem[];
  using Plan = SharedCarve<SharedMatrix<char, 3, 5>, SharedTile<float, 16, 1>, SharedMatrix<double, 8, 8, Swizzled<>>>;
  auto [c, a, b] = Plan::carve(smem);
  const int t = thread_rank();
  // Each object must start at its planned offset, and writes to one must not touch another.
  if (t == 0) {
    ok[0] = reinterpret_cast<unsigned char*>(&a) - smem == static_cast<long>(Plan::offset(1));
    ok[1] = reinterpret_cast<unsigned char*>(&b) - smem == static_cast<long>(Plan::offset(2));
  }
  for (int i = t; i < 15; i += blockDim.x) c(i / 5, i % 5) = static_cast<char>(i);
  for (int i = t; i < 256; i += blockDim.x) a(i / 16, i % 16) = static_cast<float>(i);
  for (int i = t; i < 64; i += blockDim.x) b(i / 8, i % 8) = static_cast<double>(-i);
  __syncthreads();
  int good = 1;
  for (int i = 0; i < 15; ++i) good &= c(i / 5, i % 5) == static_cast<char>(i);
  for (int i = 0; i < 256; ++i) good &= a(i / 16, i % 16) == static_cast<float>(i);
  for (int i = 0; i < 64; ++i) good &= b(i / 8, i % 8) == static_cast<double>(-i);
  ok[2 + t] = good;
}

TEST_CASE("carve hands out disjoint, correctly placed tiles from dynamic shared memory") {
  using Plan = SharedCarve<SharedMatrix<char, 3, 5>, SharedTile<float, 16, 1>, SharedMatrix<double, 8, 8, Swizzled<>>>;
  DeviceBuffer<int> ok(2 + 64);
  ok.poison();
  carve_kernel<<<1, 64, Plan::bytes>>>(ok.get());
  tilecraft::test::sync_and_check();
  for (int v : ok.download()) CHECK(v == 1);
}
