// The decoupled look-back's hazards live in global memory, where racecheck cannot see them:
// many scans back to back and on two streams at once, with tiles so small that look-backs walk
// far, every result compared with the first run bit for bit and with the host. Also: f32 results
// bit-identical over 20 runs, and an u8 -> i64 scan of 2^31 + 5 elements.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>
#include <tilecraft/util/launch.cuh>

#include "ops.cuh"
#include "scan_test_util.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;
using tilecraft::test::download;
using tilecraft::test::host_scan;
using tilecraft::test::mismatches;
using tilecraft::test::run_scan;

TEST_CASE("f32 scans are bit-identical over 20 runs") {
  // (Sanitizer-sized: 145 tiles of 8192. The default dispatch runs the mid sizes in one wave
  // where its tiles fit one (input and output 8 MiB or more), the sanitizer-sized n - 1 too;
  // 70001 and 65536 are under 1 MiB: the single pass's default tiles are checked by explicit
  // policies below.)
  const std::int64_t n = tilecraft::test::sanitizer_sized() ? (1 << 20) + (1 << 17) + 13 : (1 << 24) + 13;
  const auto real = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n), -1.0, 1.0, 4242);
  DeviceBuffer<float> in(real), out(static_cast<std::size_t>(n));
  // 65536 and 70001: 32 and 35 small tiles, by block index (no more tiles than SMs); n - 1: large
  // tiles taken from the counter (sanitizer-sized: one wave).
  for (std::int64_t m : {n - 1, std::int64_t{70001}, std::int64_t{65536}}) {
    CAPTURE(m);
    const auto mm = static_cast<std::size_t>(m);
    run_scan<false>(in.get() + 1, out.get() + 1, m, Sum{});
    const auto first = download(out.get() + 1, mm);
    std::size_t bad = 0;
    for (int run = 0; run < 20; ++run) {
      run_scan<false>(in.get() + 1, out.get() + 1, m, Sum{});
      bad += mismatches(download(out.get() + 1, mm), first);
    }
    CHECK(bad == 0);
    run_scan<true>(in.get(), out.get(), m, Sum{}, 0.25f);
    const auto efirst = download(out.get(), mm);
    bad = 0;
    for (int run = 0; run < 20; ++run) {
      run_scan<true>(in.get(), out.get(), m, Sum{}, 0.25f);
      bad += mismatches(download(out.get(), mm), efirst);
    }
    CHECK(bad == 0);
  }
}

// 64-element tiles: thousands of tiles, so a tile often finds no inclusive prefix among its 32
// nearest predecessors and walks back over many windows of aggregates (up to 16, folding up to
// 511 of them) or, past them, waits for one to appear.
using Tiny = ScanPolicy<64, 1>;

// Non-commutative operators over hundreds of tiles, exact against the host fold: a look-back
// that folds its predecessors' aggregates out of order, or adds the initial value anywhere but
// first, shows. Each tile-state layout: a 32-bit packed map (flag and value in one word), an
// 8-byte map (two words), a 16-byte map (flags and values apart); inclusive, and exclusive with
// an initial value.
template <class T, class Op>
void check_non_commutative(std::int64_t n, std::uint64_t seed, Op op, T init, T (*make)(tilecraft::test::Rng&)) {
  auto g = tilecraft::test::rng(seed);
  std::vector<T> f(static_cast<std::size_t>(n));
  for (auto& x : f) x = make(g);
  DeviceBuffer<T> in(f), out(f.size());
  const auto m = f.size();
  run_scan<false, Tiny>(in.get(), out.get(), n, op);
  CHECK(mismatches(download(out.get(), m), host_scan<false, T, T>(f, 0, m, op)) == 0);
  run_scan<true, Tiny>(in.get(), out.get(), n, op, init);
  CHECK(mismatches(download(out.get(), m), host_scan<true, T, T>(f, 0, m, op, init)) == 0);
}

// check_non_commutative in each tile-state layout, seeded from `seed`.
void check_every_layout(std::int64_t n, std::uint64_t seed) {
  check_non_commutative<std::uint32_t>(n, seed, test::ComposePacked{}, 0x00030007u, [](tilecraft::test::Rng& g) {
    return static_cast<std::uint32_t>(g()) | 0x10000u;
  });
  check_non_commutative<test::Affine>(
      n, seed + 100, test::Compose{}, test::Affine{3u, 11u}, [](tilecraft::test::Rng& g) {
        return test::Affine{static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
      });
  check_non_commutative<test::Affine64>(n, seed + 200, test::Compose64{}, test::Affine64{5u, 7u},
                                        [](tilecraft::test::Rng& g) {
                                          return test::Affine64{g() | 1u, g()};
                                        });
}

TEST_CASE("non-commutative operators over hundreds of tiles, each tile-state layout") {
  const std::int64_t tile = Tiny::tile_items;
  // Tiles: 31 and a ragged one (every look-back window reaches tile 0), 33, and 1287 with a
  // ragged last tile.
  for (std::int64_t n : {tile * 31 + 5, tile * 33, tile * 1287 - 3}) {
    CAPTURE(n);
    check_every_layout(n, 300 + static_cast<std::uint64_t>(n));
  }
}

// Few tiles: at every tile count from 2 to 9, and 2 to 9 past a wave's worth of one-tile-a-SM
// (where tiles stop following the block index and take tickets), non-commutative maps in each
// tile-state layout against the host fold, inclusive and exclusive with an initial value.
TEST_CASE("few tiles: 2 to 9 tiles, and around one tile per SM, of non-commutative maps") {
  const std::int64_t tile = Tiny::tile_items;
  int sms = 0;
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<std::int64_t> counts;
  for (std::int64_t t = 2; t <= 9; ++t) counts.push_back(t);
  for (std::int64_t t = sms - 1; t <= sms + 2; ++t) counts.push_back(t);
  for (std::int64_t tiles : counts) {
    for (std::int64_t n : {tile * tiles, tile * (tiles - 1) + 5}) {
      CAPTURE(n);
      check_every_layout(n, 600 + static_cast<std::uint64_t>(n));
    }
  }
}

// Scans in two passes (tile sums, then each tile from L2) and in one wave (every tile resident,
// a grid barrier: the tile in shared memory, in registers, or split between them), forced where
// the dispatch would take them only by size (scan_run's ScanForms): non-commutative maps of 4
// and 8 bytes exact against the host fold, inclusive and exclusive with an initial value, at 2
// to 3 tiles and at hundreds
// (each block folds runs of several sums), with a ragged last tile, misaligned (the element
// staging) and in place.
// The result, and the tile sums the form left in the temp storage (after its 16-byte header):
// the caller compares them with the host's folds, so a run that fell back to the single pass
// fails: every tile's fold but the last's (which no tile reads: pass 1 leaves it out, and the
// one-wave kernel folds a ragged last tile with its last element repeated to the tile's end),
// in tiles of the sums policy and of the one-wave policies.
template <class T>
struct FormRun {
  std::vector<T> out, sums;
};

// The tile of Form over n items (the one wave in registers: 32 bytes a thread up to
// one_wave_small_max_bytes moved, 128 above).
template <tilecraft::detail::ScanForms Form, class T>
constexpr std::int64_t form_tile(std::int64_t n) {
  namespace d = tilecraft::detail;
  if constexpr (Form == d::ScanForms::one_wave) {
    return d::DefaultScanPolicyOneWave<T, T>::tile_items;
  } else if constexpr (Form == d::ScanForms::one_wave_registers) {
    return 2 * static_cast<std::int64_t>(sizeof(T)) * n <= d::one_wave_small_max_bytes
               ? d::DefaultScanPolicyOneWaveSmall<T, T>::tile_items
               : d::DefaultScanPolicyOneWave<T, T>::tile_items;
  } else if constexpr (Form == d::ScanForms::one_wave_split) {
    return d::DefaultScanPolicyOneWaveSplit<T, T>::tile_items + d::DefaultScanPolicyOneWave<T, T>::tile_items;
  } else {
    return d::DefaultScanPolicySums<T, T>::tile_items;
  }
}

template <tilecraft::detail::ScanForms Form, class T>
std::size_t form_sums(std::int64_t n) {
  return static_cast<std::size_t>((n + form_tile<Form, T>(n) - 1) / form_tile<Form, T>(n) - 1);
}

template <tilecraft::detail::ScanForms Form, bool Exclusive, class T, class Op>
FormRun<T> forced_scan(const T* in, T* out, std::int64_t n, Op op, T init) {
  using Policy = ScanPolicy<64, 1>;  // (temp storage for its tiles holds the sums too)
  std::size_t bytes = 0;
  REQUIRE(tilecraft::detail::scan_run<Policy, Exclusive, Form>(nullptr, bytes, in, out, n, op, init, nullptr) ==
          cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();
  if (in != out) TILECRAFT_THROW_IF_ERROR(cudaMemset(out, 0xA5, static_cast<std::size_t>(n) * sizeof(T)));
  REQUIRE(tilecraft::detail::scan_run<Policy, Exclusive, Form>(temp.get(), bytes, in, out, n, op, init, nullptr) ==
          cudaSuccess);
  tilecraft::test::sync_and_check();
  const std::size_t count = form_sums<Form, T>(n);
  REQUIRE(16 + count * sizeof(T) <= bytes);
  std::vector<T> sums(count);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(sums.data(), temp.get() + 16, count * sizeof(T), cudaMemcpyDeviceToHost));
  return {download(out, static_cast<std::size_t>(n)), sums};
}

template <bool Exclusive, class T, class Op>
FormRun<T> two_pass_scan(const T* in, T* out, std::int64_t n, Op op, T init) {
  return forced_scan<tilecraft::detail::ScanForms::two_pass, Exclusive>(in, out, n, op, init);
}

template <tilecraft::detail::ScanForms Form, class T, class Op>
void check_forced(std::int64_t n, std::uint64_t seed, Op op, T init, T (*make)(tilecraft::test::Rng&)) {
  CAPTURE(sizeof(T));
  auto g = tilecraft::test::rng(seed);
  std::vector<T> f(static_cast<std::size_t>(n) + 1);
  for (auto& x : f) x = make(g);
  const auto m = static_cast<std::size_t>(n);
  const auto tile = static_cast<std::size_t>(form_tile<Form, T>(n));
  for (int shift : {0, 1}) {
    CAPTURE(shift);
    const auto s = static_cast<std::size_t>(shift);
    // Each whole tile's fold but the last tile's, in order (exact: the maps compose exactly).
    std::vector<T> want_sums(form_sums<Form, T>(n));
    for (std::size_t t = 0; t < want_sums.size(); ++t)
      want_sums[t] = host_scan<false, T, T>(f, s + t * tile, tile, op).back();
    DeviceBuffer<T> in(f), out(f.size());
    out.poison();
    const T* p = in.get() + shift;
    T* o = out.get() + shift;
    const auto inclusive = host_scan<false, T, T>(f, s, m, op);
    const auto exclusive = host_scan<true, T, T>(f, s, m, op, init);
    const auto run = forced_scan<Form, false>(p, o, n, op, init);
    CHECK(mismatches(run.out, inclusive) == 0);
    CHECK(mismatches(run.sums, want_sums) == 0);
    const auto exclusive_run = forced_scan<Form, true>(p, o, n, op, init);
    CHECK(mismatches(exclusive_run.out, exclusive) == 0);
    CHECK(mismatches(exclusive_run.sums, want_sums) == 0);
    // The element beside the output (before it, or past its end) keeps its poison.
    const auto beside = download(out.get() + (shift == 0 ? m : 0), 1);
    const T poison = tilecraft::test::poison_value<T>();
    CHECK(std::memcmp(&beside[0], &poison, sizeof(T)) == 0);
    // In place: each tile is read before it is written (two passes: after pass 1 read it all;
    // one wave: the whole input before the grid barrier).
    CHECK(mismatches(forced_scan<Form, false>(in.get() + shift, in.get() + shift, n, op, init).out, inclusive) == 0);
    in.upload(f);
    CHECK(mismatches(forced_scan<Form, true>(in.get() + shift, in.get() + shift, n, op, init).out, exclusive) == 0);
  }
  // Input and output aligned differently (two passes: pass 1 takes its vector path from the
  // input's alignment alone, pass 2 only where both are aligned): input at 0 and output at 1,
  // and the other way round.
  DeviceBuffer<T> in(f), out(f.size());
  out.poison();
  CHECK(mismatches(forced_scan<Form, false>(in.get(), out.get() + 1, n, op, init).out,
                   host_scan<false, T, T>(f, 0, m, op)) == 0);
  CHECK(mismatches(forced_scan<Form, true>(in.get() + 1, out.get(), n, op, init).out,
                   host_scan<true, T, T>(f, 1, m, op, init)) == 0);
}

template <class T, class Op>
void check_two_pass(std::int64_t n, std::uint64_t seed, Op op, T init, T (*make)(tilecraft::test::Rng&)) {
  check_forced<tilecraft::detail::ScanForms::two_pass>(n, seed, op, init, make);
}

TEST_CASE("scans in two passes: non-commutative maps, exact; floats the same bits twice") {
  // Sums tiles of 4096 (4-byte items) and 2048 (8-byte): 2, 3 (ragged) and hundreds of them.
  // Past 2048 sums tiles (full runs), blocks fold runs of more than 8 sums.
  // (Sanitizer-sized too: 41 and 81 sums tiles, 4 sums a thread of the fold's first 10 / 20.)
  std::vector<std::int64_t> sizes = {8192, 4096 * 2 + 5, 2048 * 3 - 7, 4096 * 40 + 9};
  if (!tilecraft::test::sanitizer_sized()) {
    sizes.push_back(4096 * 300 + 77);
    sizes.push_back(4096 * 2100 + 3);
    // 1026 sums tiles of 4-byte items, then of 8-byte ones: pass 2's blocks fold up to 1024
    // sums 4 a thread and 1025 in runs (fold_sums_before's two forms, across their boundary).
    sizes.push_back(4096 * 1025 + 1);
    sizes.push_back(2048 * 1025 + 1);
  }
  for (std::int64_t n : sizes) {
    CAPTURE(n);
    check_two_pass<std::uint32_t>(n, 700 + static_cast<std::uint64_t>(n), test::ComposePacked{}, 0x00030007u,
                                  [](tilecraft::test::Rng& g) { return static_cast<std::uint32_t>(g()) | 0x10000u; });
    check_two_pass<test::Affine>(
        n, 800 + static_cast<std::uint64_t>(n), test::Compose{}, test::Affine{3u, 11u}, [](tilecraft::test::Rng& g) {
          return test::Affine{static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
        });
  }
  // Floats: within the double prefix's bound, and the same bits on a second run.
  const std::int64_t n = (1 << 18) + 3;
  const auto real = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n) + 1, -1.0, 1.0, 97);
  DeviceBuffer<float> in(real), out(real.size());
  const auto first = two_pass_scan<false>(in.get() + 1, out.get() + 1, n, Sum{}, 0.0f).out;
  CHECK(tilecraft::test::float_sum_errors(first, real, 1, static_cast<std::size_t>(n)) == 0);
  CHECK(mismatches(two_pass_scan<false>(in.get() + 1, out.get() + 1, n, Sum{}, 0.0f).out, first) == 0);
  // The same values 16-byte aligned, into an aligned and a misaligned output: the same tile sums
  // and results, bit for bit (pass 1 folds an aligned tile from registers and a misaligned one
  // through the staging buffer, in one association).
  const auto misaligned = two_pass_scan<false>(in.get() + 1, out.get() + 1, n, Sum{}, 0.0f);
  DeviceBuffer<float> aligned(std::vector<float>(real.begin() + 1, real.end())), out2(real.size());
  const auto both = two_pass_scan<false>(aligned.get(), out2.get(), n, Sum{}, 0.0f);
  CHECK(mismatches(both.sums, misaligned.sums) == 0);
  CHECK(mismatches(both.out, first) == 0);
  CHECK(mismatches(two_pass_scan<false>(aligned.get(), out2.get() + 1, n, Sum{}, 0.0f).out, first) == 0);
}

// The blocks of `kernel` (256 threads, `dynamic` bytes of dynamic shared memory, opted in)
// resident on this GPU at once; 0 where the GPU cannot give a block those bytes.
template <class... Params>
std::int64_t resident_blocks(void (*kernel)(Params...), std::size_t dynamic) {
  int per_sm = 0, sms = 0, device = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  if (dynamic > 0 && tilecraft::opt_in_dynamic_smem(kernel, dynamic) != cudaSuccess) return 0;
  TILECRAFT_THROW_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 256, dynamic));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<std::int64_t>(per_sm) * sms;
}

// The tiles one wave of Form holds over n items: the resident blocks of the kernel the dispatch
// launches (the occupancy calculator's, as the dispatch asks it) on this GPU, exclusive or not,
// whichever is fewer.
template <tilecraft::detail::ScanForms Form, class T, class Op>
std::int64_t one_wave_tiles(std::int64_t n) {
  namespace d = tilecraft::detail;
  using Small = d::DefaultScanPolicyOneWaveSmall<T, T>;
  using Large = d::DefaultScanPolicyOneWave<T, T>;
  const auto resident = [](auto kernel) { return resident_blocks(kernel, 0); };
  static_assert(Small::threads == 256 && Large::threads == 256);
  if constexpr (Form == d::ScanForms::one_wave) {
    return std::min(resident(d::scan_one_wave_kernel<Large, false, T, T, T, Op>),
                    resident(d::scan_one_wave_kernel<Large, true, T, T, T, Op>));
  } else if constexpr (Form == d::ScanForms::one_wave_split) {
    using Split = d::DefaultScanPolicyOneWaveSplit<T, T>;
    constexpr std::size_t bytes = d::stage_bytes_of<Split, T, T>();
    return std::min(
        resident_blocks(d::scan_one_wave_split_kernel<Split, Large, d::one_wave_split_min_blocks, false, T, T, T, Op>,
                        bytes),
        resident_blocks(d::scan_one_wave_split_kernel<Split, Large, d::one_wave_split_min_blocks, true, T, T, T, Op>,
                        bytes));
  } else if (form_tile<Form, T>(n) == Small::tile_items) {
    return std::min(
        resident(d::scan_one_wave_registers_kernel<Small, d::one_wave_small_min_blocks<T>, false, T, T, T, Op>),
        resident(d::scan_one_wave_registers_kernel<Small, d::one_wave_small_min_blocks<T>, true, T, T, T, Op>));
  } else {
    return std::min(
        resident(d::scan_one_wave_registers_kernel<Large, d::one_wave_registers_min_blocks, false, T, T, T, Op>),
        resident(d::scan_one_wave_registers_kernel<Large, d::one_wave_registers_min_blocks, true, T, T, T, Op>));
  }
}

// Non-commutative maps through Form's one wave over n given as a count of tiles (2: exactly
// two; more: the last ragged), small or large tiles, where they fit one wave.
template <tilecraft::detail::ScanForms Form, class T, class Op>
void check_one_wave_maps_of(std::int64_t tiles, bool small, std::uint64_t seed, Op op, T init,
                            T (*make)(tilecraft::test::Rng&)) {
  namespace d = tilecraft::detail;
  const std::int64_t tile = Form == d::ScanForms::one_wave_registers && small
                                ? d::DefaultScanPolicyOneWaveSmall<T, T>::tile_items
                            : Form == d::ScanForms::one_wave_split ? form_tile<Form, T>(0)
                                                                   : d::DefaultScanPolicyOneWave<T, T>::tile_items;
  const std::int64_t n = tiles == 2 ? 2 * tile : (tiles - 1) * tile + 1 + (tiles % 1000);
  CAPTURE(n);
  REQUIRE(form_tile<Form, T>(n) == tile);
  if (tiles > one_wave_tiles<Form, T, Op>(n)) {
    MESSAGE("one wave holds fewer than " << tiles << " tiles of " << tile << " here: case skipped");
    return;
  }
  check_forced<Form, T>(n, seed + static_cast<std::uint64_t>(n), op, init, make);
}

// The maps of 4 bytes (ComposePacked) or 8 (Affine).
template <tilecraft::detail::ScanForms Form>
void check_one_wave_maps(std::int64_t tiles, bool eight_bytes, bool small) {
  if (eight_bytes) {
    check_one_wave_maps_of<Form, test::Affine>(
        tiles, small, 950, test::Compose{}, test::Affine{3u, 11u}, [](tilecraft::test::Rng& g) {
          return test::Affine{static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
        });
  } else {
    check_one_wave_maps_of<Form, std::uint32_t>(
        tiles, small, 900, test::ComposePacked{}, 0x00030007u,
        [](tilecraft::test::Rng& g) { return static_cast<std::uint32_t>(g()) | 0x10000u; });
  }
}

// Floats through Form's one wave: within the double prefix's bound, the same bits on a second
// run, and the same bits misaligned (the element staging) as aligned (the vectors).
template <tilecraft::detail::ScanForms Form>
void check_one_wave_floats(std::int64_t n, std::uint64_t seed) {
  CAPTURE(n);
  const std::int64_t tile = form_tile<Form, float>(n);
  if ((n + tile - 1) / tile > one_wave_tiles<Form, float, Sum>(n)) {
    MESSAGE("one wave holds fewer than " << (n + tile - 1) / tile << " tiles of " << tile << " here: case skipped");
    return;
  }
  const auto real = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n) + 1, -1.0, 1.0, seed);
  DeviceBuffer<float> in(real), out(real.size());
  const auto first = forced_scan<Form, false>(in.get() + 1, out.get() + 1, n, Sum{}, 0.0f).out;
  CHECK(tilecraft::test::float_sum_errors(first, real, 1, static_cast<std::size_t>(n)) == 0);
  CHECK(mismatches(forced_scan<Form, false>(in.get() + 1, out.get() + 1, n, Sum{}, 0.0f).out, first) == 0);
  DeviceBuffer<float> aligned(std::vector<float>(real.begin() + 1, real.end())), out2(real.size());
  CHECK(mismatches(forced_scan<Form, false>(aligned.get(), out2.get(), n, Sum{}, 0.0f).out, first) == 0);
}

TEST_CASE("scans in one wave, the tile in shared memory: non-commutative maps, exact; floats the same bits twice") {
  using tilecraft::detail::ScanForms;
  // Tiles of 8192 (4-byte items) and 4096 (8-byte): 2, 3 (ragged), 40 and a whole wave, the
  // last tile ragged (each block of the last folds runs of several sums).
  for (bool eight_bytes : {false, true}) {
    CAPTURE(eight_bytes);
    std::vector<std::int64_t> tiles = {2, 3, 40};
    if (!tilecraft::test::sanitizer_sized()) {
      const std::int64_t wave = eight_bytes
                                    ? one_wave_tiles<ScanForms::one_wave, test::Affine, test::Compose>(0)
                                    : one_wave_tiles<ScanForms::one_wave, std::uint32_t, test::ComposePacked>(0);
      MESSAGE("one wave holds " << wave << " tiles");
      tiles.push_back(wave);
    }
    for (std::int64_t t : tiles) check_one_wave_maps<ScanForms::one_wave>(t, eight_bytes, false);
  }
  check_one_wave_floats<ScanForms::one_wave>((1 << 21) + 3, 98);
}

TEST_CASE("scans in one wave, the tile in registers: non-commutative maps, exact; floats the same bits twice") {
  using tilecraft::detail::ScanForms;
  // Small tiles (32 bytes a thread: 2048 4-byte items, 1024 8-byte) up to 4 MiB moved: 2, 3
  // (ragged), 40 and 256 less a ragged part (the most that 4 MiB holds); large ones (128 bytes a
  // thread) past it: 65 (ragged) and a whole wave.
  for (bool eight_bytes : {false, true}) {
    CAPTURE(eight_bytes);
    std::vector<std::int64_t> small = {2, 3, 40}, large = {65};
    if (!tilecraft::test::sanitizer_sized()) {
      small.push_back(256);
      const std::int64_t wave =
          eight_bytes ? one_wave_tiles<ScanForms::one_wave_registers, test::Affine, test::Compose>(1 << 22)
                      : one_wave_tiles<ScanForms::one_wave_registers, std::uint32_t, test::ComposePacked>(1 << 22);
      MESSAGE("one wave holds " << wave << " large tiles");
      large.push_back(wave);
    }
    for (std::int64_t t : small) check_one_wave_maps<ScanForms::one_wave_registers>(t, eight_bytes, true);
    for (std::int64_t t : large) check_one_wave_maps<ScanForms::one_wave_registers>(t, eight_bytes, false);
  }
  check_one_wave_floats<ScanForms::one_wave_registers>((1 << 18) + 3, 99);
  if (!tilecraft::test::sanitizer_sized()) check_one_wave_floats<ScanForms::one_wave_registers>((1 << 21) + 3, 100);
}

// The split tiles' maps of 4 bytes (ComposePacked) or 8 (Affine) with the last tile's register
// part ragged: n items.
template <tilecraft::detail::ScanForms Form, class T>
void check_split_ragged(std::int64_t n) {
  CAPTURE(n);
  if constexpr (sizeof(T) == 8) {
    check_forced<Form, test::Affine>(
        n, 970 + static_cast<std::uint64_t>(n), test::Compose{}, test::Affine{3u, 11u}, [](tilecraft::test::Rng& g) {
          return test::Affine{static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
        });
  } else {
    check_forced<Form, std::uint32_t>(
        n, 960 + static_cast<std::uint64_t>(n), test::ComposePacked{}, 0x00030007u,
        [](tilecraft::test::Rng& g) { return static_cast<std::uint32_t>(g()) | 0x10000u; });
  }
}

TEST_CASE("scans in one wave, each tile split between shared memory and registers: maps, exact; floats") {
  namespace d = tilecraft::detail;
  constexpr d::ScanForms Form = d::ScanForms::one_wave_split;
  // Where the GPU cannot opt a block in to the shared part's 64 KiB (sm_75), or holds fewer
  // than three of these tiles at once, the form falls back: nothing to test.
  const std::int64_t wave4 = one_wave_tiles<Form, std::uint32_t, test::ComposePacked>(0);
  const std::int64_t wave8 = one_wave_tiles<Form, test::Affine, test::Compose>(0);
  if (std::min(wave4, wave8) < 3) {
    MESSAGE("one wave holds " << std::min(wave4, wave8) << " split tiles here: case skipped");
    return;
  }
  // Tiles of 16384 + 8192 4-byte items (8192 + 4096 8-byte): 2, 3 and 40 (the last tile ragged
  // within its shared part: no register part) and a whole wave; then the last tile's register
  // part ragged (the shared part whole, 5 items past it) or one item short.
  for (bool eight_bytes : {false, true}) {
    CAPTURE(eight_bytes);
    std::vector<std::int64_t> tiles = {2, 3, 40};
    if (!tilecraft::test::sanitizer_sized()) {
      const std::int64_t wave = eight_bytes ? wave8 : wave4;
      MESSAGE("one wave holds " << wave << " split tiles");
      tiles.push_back(wave);
    }
    for (std::int64_t t : tiles) check_one_wave_maps<Form>(t, eight_bytes, false);
  }
  const std::int64_t tile4 = form_tile<Form, std::uint32_t>(0), tile8 = form_tile<Form, test::Affine>(0);
  check_split_ragged<Form, std::uint32_t>(
      tile4 + d::DefaultScanPolicyOneWaveSplit<std::uint32_t, std::uint32_t>::tile_items + 5);
  check_split_ragged<Form, std::uint32_t>(3 * tile4 - 1);
  check_split_ragged<Form, test::Affine>(tile8 +
                                         d::DefaultScanPolicyOneWaveSplit<test::Affine, test::Affine>::tile_items + 5);
  check_split_ragged<Form, test::Affine>(3 * tile8 - 1);
  check_one_wave_floats<Form>((1 << 19) + 3, 101);
  if (!tilecraft::test::sanitizer_sized()) check_one_wave_floats<Form>((1 << 23) + 3, 102);
}

// The default dispatch's forms by size, seen in the tile sums each leaves after the temp
// storage's 16-byte header (uint32 sums: exact in any association), where their tiles fit one
// wave on this GPU: one wave in registers of 2048-item tiles at 2^12 + 3 items and 2^17 + 3 (1
// MiB moved), of 8192 at 2^19 + 3 (just past 4 MiB, where two passes would leave sums of 4096)
// and 2^20 + 3 (8 MiB, where the tile in shared memory would leave the same sums), one wave in
// shared memory (8192) at 2^22 + 3 (past the registers' wave on an H200), one wave of split
// tiles (24576) at 2^23 + 3 (past the shared tiles' wave). A form the dispatch no longer takes
// where it should fails here (the single pass leaves tile states there, not sums).
TEST_CASE("the default dispatch: one wave in registers, then in shared memory, then split") {
  namespace d = tilecraft::detail;
  using d::ScanForms;
  struct Case {
    std::int64_t n;
    ScanForms form;
  };
  for (const Case c :
       {Case{(1 << 12) + 3, ScanForms::one_wave_registers}, Case{(1 << 17) + 3, ScanForms::one_wave_registers},
        Case{(1 << 19) + 3, ScanForms::one_wave_registers}, Case{(1 << 20) + 3, ScanForms::one_wave_registers},
        Case{(1 << 22) + 3, ScanForms::one_wave}, Case{(1 << 23) + 3, ScanForms::one_wave_split}}) {
    CAPTURE(c.n);
    const std::int64_t tile = c.form == ScanForms::one_wave ? form_tile<ScanForms::one_wave, std::uint32_t>(c.n)
                              : c.form == ScanForms::one_wave_split
                                  ? form_tile<ScanForms::one_wave_split, std::uint32_t>(c.n)
                                  : form_tile<ScanForms::one_wave_registers, std::uint32_t>(c.n);
    const std::int64_t tiles = (c.n + tile - 1) / tile;
    const std::int64_t wave =
        c.form == ScanForms::one_wave         ? one_wave_tiles<ScanForms::one_wave, std::uint32_t, Sum>(c.n)
        : c.form == ScanForms::one_wave_split ? one_wave_tiles<ScanForms::one_wave_split, std::uint32_t, Sum>(c.n)
                                              : one_wave_tiles<ScanForms::one_wave_registers, std::uint32_t, Sum>(c.n);
    if (tiles > wave) {
      MESSAGE("one wave holds fewer than " << tiles << " tiles here: case skipped");
      continue;
    }
    if (c.form != ScanForms::one_wave_registers &&
        (c.n + 8191) / 8192 <= one_wave_tiles<ScanForms::one_wave_registers, std::uint32_t, Sum>(c.n)) {
      MESSAGE("the registers' wave holds " << tiles << " tiles here: case skipped");
      continue;
    }
    if (c.form == ScanForms::one_wave_split &&
        (c.n + 8191) / 8192 <= one_wave_tiles<ScanForms::one_wave, std::uint32_t, Sum>(c.n)) {
      MESSAGE("the shared tiles' wave holds these " << (c.n + 8191) / 8192 << " tiles here: case skipped");
      continue;
    }
    const auto host = tilecraft::test::random_vector<std::uint32_t>(static_cast<std::size_t>(c.n), 0, 1000,
                                                                    1100 + static_cast<std::uint64_t>(c.n));
    DeviceBuffer<std::uint32_t> in(host), out(host.size());
    std::vector<std::uint32_t> want_sums(static_cast<std::size_t>(tiles - 1));
    for (std::size_t t = 0; t < want_sums.size(); ++t) {
      std::uint32_t sum = 0;
      for (std::int64_t i = 0; i < tile; ++i)
        sum += host[t * static_cast<std::size_t>(tile) + static_cast<std::size_t>(i)];
      want_sums[t] = sum;
    }
    for (bool exclusive : {false, true}) {
      CAPTURE(exclusive);
      std::size_t bytes = 0;
      REQUIRE(tilecraft::inclusive_scan(nullptr, bytes, in.get(), out.get(), c.n, Sum{}) == cudaSuccess);
      DeviceBuffer<unsigned char> temp(bytes);
      temp.poison();
      out.poison();
      if (exclusive) {
        REQUIRE(tilecraft::exclusive_scan(temp.get(), bytes, in.get(), out.get(), c.n, Sum{}, 7u) == cudaSuccess);
      } else {
        REQUIRE(tilecraft::inclusive_scan(temp.get(), bytes, in.get(), out.get(), c.n, Sum{}) == cudaSuccess);
      }
      tilecraft::test::sync_and_check();
      std::vector<std::uint32_t> sums(want_sums.size());
      TILECRAFT_THROW_IF_ERROR(
          cudaMemcpy(sums.data(), temp.get() + 16, sums.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
      CHECK(mismatches(sums, want_sums) == 0);
      const auto want = exclusive ? host_scan<true, std::uint32_t, std::uint32_t>(host, 0, host.size(), Sum{}, 7u)
                                  : host_scan<false, std::uint32_t, std::uint32_t>(host, 0, host.size(), Sum{});
      CHECK(mismatches(out.download(), want) == 0);
    }
  }
}

// Tiles by block index (at most one per SM) and by ticket fold the same tiles in the same
// order: their f32 results are the same bits (both forced through the dispatch's
// by_block_allowed). Misaligned and in place too. (Every run's bits: the 20-run case above.)
template <class Policy, bool Exclusive>
std::vector<float> scan_path(const float* in, float* out, std::int64_t n, bool by_block, bool far = true) {
  std::size_t bytes = 0;
  REQUIRE(tilecraft::detail::scan_run<Policy, Exclusive>(nullptr, bytes, in, out, n, Sum{}, 0.5f, nullptr, by_block,
                                                         far) == cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();
  if (in != out) TILECRAFT_THROW_IF_ERROR(cudaMemset(out, 0xA5, static_cast<std::size_t>(n) * sizeof(float)));
  REQUIRE(tilecraft::detail::scan_run<Policy, Exclusive>(temp.get(), bytes, in, out, n, Sum{}, 0.5f, nullptr, by_block,
                                                         far) == cudaSuccess);
  tilecraft::test::sync_and_check();
  return download(out, static_cast<std::size_t>(n));
}

template <class Policy>
void check_order_bits(const std::vector<float>& real, std::int64_t n, int shift) {
  CAPTURE(Policy::tile_items);
  CAPTURE(n);
  CAPTURE(shift);
  const auto m = static_cast<std::size_t>(n), s = static_cast<std::size_t>(shift);
  // The two paths differ only where the dispatch may take tiles by block index: from 2 tiles
  // up to one a multiprocessor (one tile needs no order; more take tickets either way).
  int sms = 0;
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::int64_t tiles = (n + Policy::tile_items - 1) / Policy::tile_items;
  if (tiles < 2 || tiles > sms) return;
  DeviceBuffer<float> in(real), out(real.size());
  const float* p = in.get() + shift;
  float* o = out.get() + shift;
  const auto by_block = scan_path<Policy, false>(p, o, n, true);
  CHECK(mismatches(by_block, scan_path<Policy, false>(p, o, n, false)) == 0);
  const auto exclusive = scan_path<Policy, true>(p, o, n, true);
  CHECK(mismatches(exclusive, scan_path<Policy, true>(p, o, n, false)) == 0);
  CHECK(tilecraft::test::float_sum_errors(by_block, real, s, m) == 0);  // against a double prefix
  // In place: each tile is read before it is written.
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(out.get(), in.get(), real.size() * sizeof(float), cudaMemcpyDeviceToDevice));
  CHECK(mismatches(scan_path<Policy, false>(o, o, n, true), by_block) == 0);
}

TEST_CASE("tiles by block index and by ticket: the same bits") {
  const auto real = tilecraft::test::random_vector<float>(std::size_t{1} << 21, -1.0, 1.0, 91);
  // 2 tiles of 2048; 32 of 2048 and 8 of 8192; 49 of 2048 and 13 of 8192; 128 of 8192 (the
  // sizes whose tile counts are 1 or above the SM count are skipped: one path either way).
  std::vector<std::int64_t> sizes = {2049, 65536, 100003};
  if (!tilecraft::test::sanitizer_sized()) sizes.push_back(std::int64_t{1} << 20);
  for (int shift : {0, 1}) {
    for (std::int64_t n : sizes) {
      check_order_bits<ScanPolicy<256, 8>>(real, n, shift);   // the small default tile
      check_order_bits<ScanPolicy<256, 32>>(real, n, shift);  // the register tile
      check_order_bits<ScanPolicy<128, 64>>(real, n, shift);  // two passes over shared memory
    }
  }
}

// The look-back walks back over the aggregates (look_back_far) instead of waiting in place for
// an inclusive prefix (look_back): the same sequential fold, so the same f32 bits (both forced
// through the dispatch's far_allowed). 33, 313, 938 and 3126 tiles of 64 (the last two past the
// walk's 16 windows, where it waits in place at the farthest; the last past 8 x SMs), 3, 33 and
// 129 of 2048, and 1, 9 and 33 of 8192 (tickets, not block indices), misaligned and exclusive too.
TEST_CASE("the walk over the aggregates and waiting in place: the same bits") {
  const auto real = tilecraft::test::random_vector<float>(std::size_t{1} << 19, -1.0, 1.0, 77);
  DeviceBuffer<float> in(real), out(real.size());
  auto check = [&]<class Policy>(std::int64_t n, int shift) {
    CAPTURE(Policy::tile_items);
    CAPTURE(n);
    CAPTURE(shift);
    const float* p = in.get() + shift;
    float* o = out.get() + shift;
    const auto far = scan_path<Policy, false>(p, o, n, false, true);
    CHECK(mismatches(far, scan_path<Policy, false>(p, o, n, false, false)) == 0);
    CHECK(tilecraft::test::float_sum_errors(far, real, static_cast<std::size_t>(shift), static_cast<std::size_t>(n)) ==
          0);
    const auto exclusive = scan_path<Policy, true>(p, o, n, false, true);
    CHECK(mismatches(exclusive, scan_path<Policy, true>(p, o, n, false, false)) == 0);
  };
  for (int shift : {0, 3}) {
    for (std::int64_t n : {std::int64_t{2049}, std::int64_t{20001}, std::int64_t{60001}, std::int64_t{200001}}) {
      check.template operator()<Tiny>(n, shift);
    }
    for (std::int64_t n : {std::int64_t{4097}, std::int64_t{65536 + 5}, std::int64_t{264001}}) {
      check.template operator()<ScanPolicy<256, 8>>(n, shift);
      check.template operator()<ScanPolicy<128, 64>>(n, shift);
    }
  }
}

// Holds one SM per block for a while: most of the SM's shared memory, so no scan block fits
// beside it, and a spin of (1 + b % 5) x `ns` nanoseconds, so the SMs free up one group after
// another.
__global__ void hold_sm(unsigned long long ns) {
  extern __shared__ unsigned char held[];
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  const unsigned long long until = start + ns * (1 + blockIdx.x % 5);
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now < until);
  held[threadIdx.x] = static_cast<unsigned char>(now);
}

// Tiles follow the block index only where there are no more tiles than SMs, so that no block
// can wait forever for a tile whose block has not started: even when the scan's blocks start
// one group of SMs at a time, beside a kernel that holds every SM, it finishes, exactly.
TEST_CASE("tiles by block index beside a kernel that holds every SM") {
  int sms = 0, optin = 0;
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  const auto held = static_cast<std::size_t>(optin);
  REQUIRE(tilecraft::opt_in_dynamic_smem(hold_sm, held) == cudaSuccess);
  using Registers = ScanPolicy<256, 32>;  // 8192 elements a tile: sms - 4 tiles
  const std::int64_t n = Registers::tile_items * (sms - 4) - 3;
  const auto host = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), -1000, 1000, 31);
  DeviceBuffer<int> in(host), out(host.size());
  out.poison();
  std::size_t bytes = 0;
  REQUIRE(inclusive_scan<Registers>(nullptr, bytes, in.get(), out.get(), n, Sum{}) == cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  const tilecraft::test::Stream holder(cudaStreamNonBlocking), scanner(cudaStreamNonBlocking);
  hold_sm<<<sms, 32, held, holder>>>(100000);  // 0.1 to 0.5 ms a block
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  REQUIRE(inclusive_scan<Registers>(temp.get(), bytes, in.get(), out.get(), n, Sum{}, scanner) == cudaSuccess);
  scanner.synchronize();
  holder.synchronize();
  tilecraft::test::sync_and_check();
  CHECK(mismatches(out.download(), host_scan<false, int, int>(host, 0, host.size(), Sum{})) == 0);
}

template <class Policy, class T>
void stress(const std::vector<T>& host, int rounds) {
  const std::int64_t n = static_cast<std::int64_t>(host.size());
  const auto m = host.size();
  DeviceBuffer<T> in(host);
  std::size_t bytes = 0;
  REQUIRE(inclusive_scan<Policy>(nullptr, bytes, in.get(), static_cast<T*>(nullptr), n, Sum{}) == cudaSuccess);
  const tilecraft::test::Stream streams[2] = {tilecraft::test::Stream(cudaStreamNonBlocking),
                                              tilecraft::test::Stream(cudaStreamNonBlocking)};
  std::vector<std::vector<T>> results;
  // Each stream its own temp storage and outputs; every round launches on both streams before
  // synchronizing, so the two scans run side by side and compete for the SMs.
  DeviceBuffer<unsigned char> temp0(bytes), temp1(bytes);
  temp0.poison();
  temp1.poison();
  std::vector<std::unique_ptr<DeviceBuffer<T>>> outs;
  for (int r = 0; r < 2 * rounds; ++r) outs.push_back(std::make_unique<DeviceBuffer<T>>(m));
  for (auto& o : outs) o->poison();
  // The poisoning memsets run on the legacy default stream, which non-blocking streams do not
  // wait for: without this, a memset still running could overwrite the tile counter after a
  // scan's init kernel has cleared it (seen on a busy GPU as an illegal address).
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  for (int r = 0; r < rounds; ++r) {
    REQUIRE(inclusive_scan<Policy>(temp0.get(), bytes, in.get(), outs[2 * r]->get(), n, Sum{}, streams[0]) ==
            cudaSuccess);
    REQUIRE(inclusive_scan<Policy>(temp1.get(), bytes, in.get(), outs[2 * r + 1]->get(), n, Sum{}, streams[1]) ==
            cudaSuccess);
  }
  for (const auto& s : streams) s.synchronize();
  tilecraft::test::sync_and_check();
  const auto first = outs[0]->download();
  CHECK(mismatches(first, host_scan<false, T, T>(host, 0, m, Sum{})) == 0);
  std::size_t bad = 0;
  for (auto& o : outs) bad += mismatches(o->download(), first);
  CHECK(bad == 0);
}

TEST_CASE("look-back stress: back to back, two streams, far walks") {
  const bool small = tilecraft::test::sanitizer_sized();
  const std::size_t n = small ? (std::size_t{1} << 16) + 77 : (std::size_t{1} << 20) + 77;  // up to 16385 tiles of 64
  const int rounds = small ? 2 : 8;
  const auto ints = tilecraft::test::random_vector<int>(n, -1000, 1000, 77);
  stress<Tiny>(ints, rounds);
  stress<void>(ints, rounds);
  // Real floats: bit-identical across runs even when the look-back meets different tiles.
  const auto real = tilecraft::test::random_vector<float>(n, -1.0, 1.0, 78);
  DeviceBuffer<float> in(real), out(n);
  run_scan<false, Tiny>(in.get(), out.get(), static_cast<std::int64_t>(n), Sum{});
  const auto first = out.download();
  std::size_t bad = 0;
  for (int r = 0; r < rounds; ++r) {
    run_scan<false, Tiny>(in.get(), out.get(), static_cast<std::int64_t>(n), Sum{});
    bad += mismatches(out.download(), first);
  }
  CHECK(bad == 0);
  // 8-byte accumulators (two words a state) walking far.
  std::vector<double> d(ints.begin(), ints.end());
  stress<Tiny>(d, rounds / 2);
}

// Checks the u8 -> i64 prefix of the huge case on the device: the input is all 3 except a few
// marked bytes, so the expected prefix at i is known in closed form.
__global__ void count_wrong(const std::int64_t* out, std::int64_t n, const std::int64_t* where, const int* marks,
                            int count, unsigned long long* wrong) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::int64_t want = 3 * (i + 1);
    for (int k = 0; k < count; ++k) {
      if (where[k] <= i) want += marks[k] - 3;
    }
    bad += out[i] != want;
  }
  if (bad != 0) atomicAdd(wrong, bad);
}

TEST_CASE("u8 into i64 past 2^31 elements") {
  if (tilecraft::test::sanitizer_sized()) {
    MESSAGE("TILECRAFT_TEST_HUGE=0: skipping the 2^31 + 5 element case");
    return;
  }
  const std::int64_t n = (std::int64_t{1} << 31) + 5;
  DeviceBuffer<std::uint8_t> in(static_cast<std::size_t>(n) + 1);
  DeviceBuffer<std::int64_t> out(static_cast<std::size_t>(n));
  TILECRAFT_THROW_IF_ERROR(cudaMemset(in.get(), 3, static_cast<std::size_t>(n) + 1));
  // Marks (positions relative to the misaligned input at +1): head, around 2^31, the tail.
  const std::vector<std::int64_t> where = {0, 1, (std::int64_t{1} << 31) - 2, (std::int64_t{1} << 31), n - 1};
  const std::vector<int> marks = {200, 0, 255, 17, 250};
  for (std::size_t k = 0; k < where.size(); ++k) {
    const auto b = static_cast<std::uint8_t>(marks[k]);
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in.get() + 1 + where[k], &b, 1, cudaMemcpyHostToDevice));
  }
  run_scan<false>(in.get() + 1, out.get(), n, Sum{});
  DeviceBuffer<std::int64_t> d_where(where);
  DeviceBuffer<int> d_marks(marks);
  DeviceBuffer<unsigned long long> wrong(std::vector<unsigned long long>{0});
  count_wrong<<<1024, 256>>>(out.get(), n, d_where.get(), d_marks.get(), static_cast<int>(where.size()), wrong.get());
  tilecraft::test::sync_and_check();
  CHECK(wrong.download()[0] == 0);
}

// Items of 296 bytes (74 ints added element by element): the narrowest whose default tiles are
// 64 threads of one item, so that the staging buffer, block_scan's storage and the look-back's
// 32 accumulators fit 48 KiB of static shared memory together (128 threads would need 49200
// bytes); 47 tiles, so the look-back walks over many of them.
struct Wide74 {
  std::int32_t v[74];
};
struct WideSum {
  TILECRAFT_HOST_DEVICE Wide74 operator()(const Wide74& a, const Wide74& b) const {
    Wide74 r;
    for (int i = 0; i < 74; ++i) r.v[i] = a.v[i] + b.v[i];
    return r;
  }
};

TEST_CASE("scans of 296-byte items with the default tiles") {
  const std::size_t n = 3001;
  auto g = tilecraft::test::rng(5151);
  std::vector<Wide74> host(n);
  for (auto& x : host) {
    for (auto& e : x.v) e = static_cast<std::int32_t>(g.uniform_int(-1000, 1000));
  }
  DeviceBuffer<Wide74> in(host), out(n);
  const auto n64 = static_cast<std::int64_t>(n);
  run_scan<false>(in.get(), out.get(), n64, WideSum{});
  CHECK(mismatches(download(out.get(), n), host_scan<false, Wide74, Wide74>(host, 0, n, WideSum{})) == 0);
  Wide74 init{};
  init.v[3] = 7;
  run_scan<true>(in.get(), out.get(), n64, WideSum{}, init);
  CHECK(mismatches(download(out.get(), n), host_scan<true, Wide74, Wide74>(host, 0, n, WideSum{}, init)) == 0);
}

// Tile states of accumulators that are not whole aligned words: 12 bytes of alignment 1 (flags
// and values apart, the values moved byte by byte) and 6 bytes of alignment 2 (the two-word
// layout, the second word's half partly used). Non-commutative maps over bytes and 16-bit
// words, so a tile folded out of order or twice shows; over a few tiles and hundreds (1000003
// items: 391 tiles of 12-byte items, 187 of 6-byte ones).
struct Maps12 {
  std::uint8_t m[6], a[6];  // six affine maps mod 2^8: x -> m x + a
};
struct ComposeMaps12 {
  TILECRAFT_HOST_DEVICE Maps12 operator()(const Maps12& f, const Maps12& g) const {
    Maps12 r;
    for (int i = 0; i < 6; ++i) {
      r.m[i] = static_cast<std::uint8_t>(g.m[i] * f.m[i]);
      r.a[i] = static_cast<std::uint8_t>(g.m[i] * f.a[i] + g.a[i]);
    }
    return r;
  }
};
struct Map6 {
  std::uint16_t m, a, s;  // x -> m x + a mod 2^16, and a plain sum
};
struct ComposeMap6 {
  TILECRAFT_HOST_DEVICE Map6 operator()(const Map6& f, const Map6& g) const {
    return Map6{static_cast<std::uint16_t>(g.m * f.m), static_cast<std::uint16_t>(g.m * f.a + g.a),
                static_cast<std::uint16_t>(f.s + g.s)};
  }
};
static_assert(sizeof(Maps12) == 12 && alignof(Maps12) == 1 && tilecraft::detail::tile_status_kind<Maps12> == 2);
static_assert(sizeof(Map6) == 6 && alignof(Map6) == 2 && tilecraft::detail::tile_status_kind<Map6> == 1);

// Inclusive only: an exclusive scan's tile states are the same (one kernel fewer a type, for
// every architecture CI builds).
template <class T, class Op, class Make>
void check_odd_width(std::size_t n, Op op, Make make) {
  CAPTURE(sizeof(T));
  CAPTURE(n);
  std::vector<T> host(n);
  for (auto& x : host) x = make();
  DeviceBuffer<T> in(host), out(n);
  const auto n64 = static_cast<std::int64_t>(n);
  run_scan<false>(in.get(), out.get(), n64, op);
  CHECK(mismatches(download(out.get(), n), host_scan<false, T, T>(host, 0, n, op)) == 0);
}

TEST_CASE("tile states of accumulators of 12 bytes of alignment 1 and 6 bytes of alignment 2") {
  auto g = tilecraft::test::rng(6262);
  auto odd = [&] { return static_cast<std::uint8_t>(g() | 1u); };
  auto any8 = [&] { return static_cast<std::uint8_t>(g()); };
  auto make12 = [&] {
    Maps12 x;
    for (int i = 0; i < 6; ++i) {
      x.m[i] = odd();
      x.a[i] = any8();
    }
    return x;
  };
  auto make6 = [&] {
    return Map6{static_cast<std::uint16_t>(g() | 1u), static_cast<std::uint16_t>(g()), static_cast<std::uint16_t>(g())};
  };
  const std::size_t most = tilecraft::test::sanitizer_sized() ? 300001 : 1000003;  // 118 and 56 tiles
  for (std::size_t n : {std::size_t{1}, std::size_t{777}, std::size_t{20000}, most}) {
    check_odd_width<Maps12>(n, ComposeMaps12{}, make12);
    check_odd_width<Map6>(n, ComposeMap6{}, make6);
  }
}

// Scans of an accumulator aligned to more than 16 bytes, whose tile states' value arrays start at
// multiples of 32 (tile_value_align; the layout's own test, which fails on 16-byte offsets, is
// the host test test_scan_validation.cpp: here the states are moved 4 bytes at a time, so a
// misaligned array would not fault on sm_90). Two affine maps mod 2^64 (composition does not
// commute, so a tile folded out of order or twice shows).
struct alignas(32) Maps32 {
  std::uint64_t m[2], a[2];
};
struct ComposeMaps32 {
  TILECRAFT_HOST_DEVICE Maps32 operator()(const Maps32& f, const Maps32& g) const {
    Maps32 r;
    for (int i = 0; i < 2; ++i) {
      r.m[i] = g.m[i] * f.m[i];
      r.a[i] = g.m[i] * f.a[i] + g.a[i];
    }
    return r;
  }
};
static_assert(sizeof(Maps32) == 32 && alignof(Maps32) == 32 && tilecraft::detail::tile_status_kind<Maps32> == 2);

TEST_CASE("tile states of a 32-byte accumulator aligned to 32 bytes") {
  auto g = tilecraft::test::rng(7373);
  auto make = [&] {
    Maps32 x;
    for (int i = 0; i < 2; ++i) {
      x.m[i] = (static_cast<std::uint64_t>(g()) << 32 | g()) | 1u;
      x.a[i] = static_cast<std::uint64_t>(g()) << 32 | g();
    }
    return x;
  };
  for (std::size_t n : {std::size_t{1}, std::size_t{777}, std::size_t{20000}, std::size_t{100003}}) {
    check_odd_width<Maps32>(n, ComposeMaps32{}, make);
  }
}
