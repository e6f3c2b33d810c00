// Randomized edge test of every tile copy: random matrix shapes, leading dimensions, base
// alignments and tile origins from a tile's length before the matrix to past its end, on both
// axes, for the register load, the asynchronous load and the fragment load, and for straight and
// transposed stores, against a host reference. Outputs are poisoned first, so an element
// written outside the matrix or a tile element left unwritten shows; run under
// compute-sanitizer memcheck, an access outside the matrix fails too.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <tilecraft/memory/shared_tile.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

namespace {

struct alignas(16) Quad {
  std::int32_t v[4];
};

enum class Load { registers, async, fragment };

struct Origins {
  std::int64_t load_r, load_c, store_r, store_c, store_t_r, store_t_c;
};

template <class Tile, int Threads, class Copy, class Drain, Load L>
__global__ void edge_kernel(MatrixRef<const typename Tile::value_type> in, typename Tile::value_type fill,
                            typename Tile::value_type* dump, MatrixRef<typename Tile::value_type> out,
                            MatrixRef<typename Tile::value_type> out_t, Origins o) {
  __shared__ Tile tile;
  if constexpr (L == Load::registers) {
    copy_tile<Threads, Copy>(tile, in, o.load_r, o.load_c, fill);
    __syncthreads();
  } else if constexpr (L == Load::async) {
    copy_tile_async<Threads, Copy>(tile, in, o.load_r, o.load_c, fill);
    copy_async_commit();
    copy_async_wait_block<0>();
  } else {
    TileFragment<Threads, Tile, Copy> frag;
    load_fragment(frag, in, o.load_r, o.load_c, fill);
    store_fragment(tile, frag);
    __syncthreads();
  }
  for (int i = thread_rank(); i < Tile::rows * Tile::cols; i += block_threads())
    dump[i] = tile(i / Tile::cols, i % Tile::cols);
  copy_tile<Threads, Copy>(out, o.store_r, o.store_c, tile);
  copy_tile<Threads, Drain>(out_t, o.store_t_r, o.store_t_c, transposed(tile));
}

using tilecraft::test::make_value;
using tilecraft::test::same_bits;

// A random origin on one axis: from `tile` before the matrix to 2 past its end.
std::int64_t random_origin(tilecraft::test::Rng& g, std::int64_t extent, int tile) {
  return g.uniform_int(-tile - 1, extent + 2);
}

// Aligned: every row and every origin column on a 16-byte boundary (leading dimensions rounded
// up to whole vectors, no base offset), so that the vector paths run at every edge; else
// random leading dimensions and base offsets.
template <class Tile, int Threads, class Copy, class Drain, Load L, bool Aligned = false>
void check_random_edges(std::uint64_t salt, int trials) {
  using T = typename Tile::value_type;
  constexpr int TR = Tile::rows, TC = Tile::cols;
  constexpr std::int64_t vec = sizeof(T) < 16 ? 16 / sizeof(T) : 1;
  auto whole = [&](std::int64_t x) { return Aligned ? (x + vec - 1) / vec * vec : x; };
  auto aligned_origin = [&](std::int64_t c) { return Aligned ? (c >= 0 ? c : c - (vec - 1)) / vec * vec : c; };
  auto g = tilecraft::test::rng(salt);
  for (int trial = 0; trial < trials; ++trial) {
    const std::int64_t rows = g.uniform_int(0, 3 * TR);
    const std::int64_t cols = g.uniform_int(trial == 0 ? 0 : 1, 3 * TC);
    // Leading dimensions: tight, or padded by up to 5 (odd pads break vector alignment).
    const std::int64_t ld = whole(cols + g.uniform_int(0, 5) * (g() % 2));
    const std::int64_t ld_t = whole(rows + g.uniform_int(0, 5) * (g() % 2));
    // Base offsets in elements: 0 keeps 16-byte alignment, others shift it.
    const std::int64_t offset = Aligned ? 0 : static_cast<std::int64_t>(g() % 4) * (g() % 2);
    Origins o{random_origin(g, rows, TR), random_origin(g, cols, TC), random_origin(g, rows, TR),
              random_origin(g, cols, TC), random_origin(g, cols, TC), random_origin(g, rows, TR)};
    o.load_c = aligned_origin(o.load_c);
    o.store_c = aligned_origin(o.store_c);
    o.store_t_c = aligned_origin(o.store_t_c);
    CAPTURE(trial);
    CAPTURE(rows);
    CAPTURE(cols);
    CAPTURE(ld);
    CAPTURE(ld_t);
    CAPTURE(offset);
    CAPTURE(o.load_r);
    CAPTURE(o.load_c);
    CAPTURE(o.store_r);
    CAPTURE(o.store_c);
    CAPTURE(o.store_t_r);
    CAPTURE(o.store_t_c);

    // Exactly the matrix's span is allocated (plus the offset), so memcheck catches any
    // access past either end.
    const std::size_t span = static_cast<std::size_t>(offset + rows * ld);
    const std::size_t span_t = static_cast<std::size_t>(offset + cols * ld_t);
    std::vector<T> host(span);
    for (auto& x : host) x = make_value<T>(g());
    const T fill = make_value<T>(g());
    DeviceBuffer<T> in(host.size());
    if (!host.empty()) in.upload(host);
    DeviceBuffer<T> out(span), out_t(span_t), dump(static_cast<std::size_t>(TR * TC));
    out.poison();
    out_t.poison();
    dump.poison();

    edge_kernel<Tile, Threads, Copy, Drain, L><<<1, Threads + 32>>>(
        MatrixRef<const T>{in.get() + offset, rows, cols, ld}, fill, dump.get(),
        MatrixRef<T>{out.get() + offset, rows, cols, ld}, MatrixRef<T>{out_t.get() + offset, cols, rows, ld_t}, o);
    tilecraft::test::sync_and_check();

    const auto h_dump = dump.download();
    const auto h_out = out.download();
    const auto h_out_t = out_t.download();
    const T poison = tilecraft::test::poison_value<T>();
    auto in_matrix = [&](std::int64_t r, std::int64_t c) { return r >= 0 && r < rows && c >= 0 && c < cols; };
    // The tile as loaded.
    auto tile_at = [&](int r, int c) {
      const std::int64_t gr = o.load_r + r, gc = o.load_c + c;
      return in_matrix(gr, gc) ? host[static_cast<std::size_t>(offset + gr * ld + gc)] : fill;
    };
    int bad = 0;
    for (int r = 0; r < TR; ++r)
      for (int c = 0; c < TC; ++c) bad += !same_bits(h_dump[static_cast<std::size_t>(r * TC + c)], tile_at(r, c));
    CHECK_MESSAGE(bad == 0, "load: ", bad, " wrong tile elements");

    bad = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = 0; c < ld; ++c) {
        const std::int64_t tr = r - o.store_r, tc = c - o.store_c;
        const bool written = c < cols && tr >= 0 && tr < TR && tc >= 0 && tc < TC;
        const T want = written ? tile_at(static_cast<int>(tr), static_cast<int>(tc)) : poison;
        bad += !same_bits(h_out[static_cast<std::size_t>(offset + r * ld + c)], want);
      }
    }
    CHECK_MESSAGE(bad == 0, "store: ", bad, " wrong output elements");

    bad = 0;  // out_t is cols x rows; view element (vr, vc) is tile element (vc, vr).
    for (std::int64_t r = 0; r < cols; ++r) {
      for (std::int64_t c = 0; c < ld_t; ++c) {
        const std::int64_t vr = r - o.store_t_r, vc = c - o.store_t_c;
        const bool written = c < rows && vr >= 0 && vr < TC && vc >= 0 && vc < TR;
        const T want = written ? tile_at(static_cast<int>(vc), static_cast<int>(vr)) : poison;
        bad += !same_bits(h_out_t[static_cast<std::size_t>(offset + r * ld_t + c)], want);
      }
    }
    CHECK_MESSAGE(bad == 0, "transposed store: ", bad, " wrong output elements");
  }
}

template <class Tile, int Threads, class Copy = TileCopy<>, class Drain = Copy, bool Aligned = false>
void check_every_load(std::uint64_t salt, int trials = 24) {
  SUBCASE("copy_tile") { check_random_edges<Tile, Threads, Copy, Drain, Load::registers, Aligned>(salt, trials); }
  SUBCASE("copy_tile_async") { check_random_edges<Tile, Threads, Copy, Drain, Load::async, Aligned>(salt + 1, trials); }
  SUBCASE("load_fragment") {
    check_random_edges<Tile, Threads, Copy, Drain, Load::fragment, Aligned>(salt + 2, trials);
  }
}

using Rows = TileCopy<CacheHint::normal, TileMapping::rows>;
using Wide = TileCopy<CacheHint::normal, TileMapping::wide>;
using Blocks = TileCopy<CacheHint::normal, TileMapping::transposed_blocks>;
using Streaming = TileCopy<CacheHint::streaming>;

}  // namespace

TEST_CASE("tile copies at random origins: an unpadded 8 x 32 float tile") {
  check_every_load<SharedMatrix<float, 8, 32, Padded<0>>, 64>(101, 40);
}

TEST_CASE_TEMPLATE("tile copies at random origins, every layout and element width", Tile, SharedTile<float, 32, 1>,
                   SharedMatrix<float, 64, 32, Swizzled<>>, SharedMatrix<float, 16, 64, Swizzled<16>>,
                   SharedTile<double, 32, 1>, SharedMatrix<double, 8, 16, Swizzled<>>,
                   SharedMatrix<char, 24, 40, Padded<3>>, SharedMatrix<short, 33, 17, Padded<1>>,
                   SharedMatrix<Quad, 9, 8, Padded<1>>, SharedMatrix<float, 1, 1>, SharedMatrix<float, 3, 5>,
                   SharedMatrix<float, 1, 256>) {
  check_every_load<Tile, 96>(202);
}

// 1- and 2-byte elements whose tile rows hold whole 16-byte vectors, from rows and origins on
// 16-byte boundaries: the copies move 16-byte chunks (cp.async's included), with the vector
// edge cases at every side.
TEST_CASE_TEMPLATE("tile copies at random origins, 1- and 2-byte elements in 16-byte chunks", Tile,
                   SharedMatrix<short, 16, 64>, SharedMatrix<short, 8, 40, Padded<8>>,
                   SharedMatrix<char, 8, 128, Padded<16>>) {
  check_every_load<Tile, 96, TileCopy<>, TileCopy<>, true>(808);
}

TEST_CASE("tile copies at random origins, every mapping and hint") {
  SUBCASE("rows") { check_every_load<SharedMatrix<double, 16, 32, Padded<1>>, 64, Rows, TileCopy<>>(303); }
  SUBCASE("wide + transposed_blocks, float") {
    check_every_load<SharedMatrix<float, 64, 64, Swizzled<16, 4>>, 64, Wide, Blocks>(404, 16);
  }
  SUBCASE("wide + transposed_blocks, double") {
    check_every_load<SharedMatrix<double, 32, 32, Swizzled<16, 2>>, 128, Wide, Blocks>(505, 16);
  }
  SUBCASE("streaming") { check_every_load<SharedMatrix<float, 16, 64, Swizzled<16>>, 128, Streaming>(606); }
  SUBCASE("a single warp, tile larger than a pass") { check_every_load<SharedMatrix<float, 40, 24>, 32>(707); }
}

namespace {
// Element types whose alignment is below their size: cp.async of one element would need the
// address aligned to the element's size, which such an array (here 4 bytes past a 16-byte
// boundary) does not give. The asynchronous load must still be right.
struct Pair {
  float a, b;
};
struct Float4u {
  float v[4];
};

template <class Tile>
__global__ void async_load_kernel(MatrixRef<const typename Tile::value_type> in, typename Tile::value_type* dump,
                                  std::int64_t r0, std::int64_t c0) {
  __shared__ Tile tile;
  copy_tile_async<64>(tile, in, r0, c0, typename Tile::value_type{});
  copy_async_commit();
  copy_async_wait_block<0>();
  for (int i = thread_rank(); i < Tile::rows * Tile::cols; i += block_threads())
    dump[i] = tile(i / Tile::cols, i % Tile::cols);
}

template <class T>
void check_underaligned(std::uint64_t salt) {
  using Tile = SharedMatrix<T, 8, 16>;
  static_assert(alignof(T) < sizeof(T));
  constexpr std::int64_t rows = 21, cols = 37, ld = 41;
  auto g = tilecraft::test::rng(salt);
  std::vector<T> host(static_cast<std::size_t>(rows * ld));
  for (auto& x : host) x = make_value<T>(g());
  // The matrix starts 4 bytes past the allocation: aligned to its elements' alignment only.
  DeviceBuffer<unsigned char> raw(host.size() * sizeof(T) + 4);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(raw.get() + 4, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  const auto* data = reinterpret_cast<const T*>(raw.get() + 4);
  DeviceBuffer<T> dump(static_cast<std::size_t>(Tile::rows * Tile::cols));
  for (auto [r0, c0] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {3, 5}, {-2, -3}, {17, 30}}) {
    CAPTURE(r0);
    CAPTURE(c0);
    dump.poison();
    async_load_kernel<Tile><<<1, 96>>>(MatrixRef<const T>{data, rows, cols, ld}, dump.get(), r0, c0);
    tilecraft::test::sync_and_check();
    const auto h = dump.download();
    int bad = 0;
    for (int r = 0; r < Tile::rows; ++r) {
      for (int c = 0; c < Tile::cols; ++c) {
        const std::int64_t gr = r0 + r, gc = c0 + c;
        const bool in_matrix = gr >= 0 && gr < rows && gc >= 0 && gc < cols;
        const T want = in_matrix ? host[static_cast<std::size_t>(gr * ld + gc)] : T{};
        bad += !same_bits(h[static_cast<std::size_t>(r * Tile::cols + c)], want);
      }
    }
    CHECK(bad == 0);
  }
}
}  // namespace

TEST_CASE("copy_tile_async of element types aligned below their size, at an address aligned to that only") {
  check_underaligned<Pair>(808);
  check_underaligned<Float4u>(909);
}
