// Scans past one wave in rounds of grid barriers (sixty-ninth session; measured in the seventieth:
// every variant lost, 0.53-0.97x CUB from 2^22.58 to 2^28, benchmarks/TUNING.md): a cooperative
// grid of one wave of blocks, block b scanning tiles b, b + G, b + 2 G, ... (G blocks), one tile
// a round. Each round every block loads its tile into shared memory, publishes its fold, meets
// the others at the grid barrier, and scans and stores its tile with the prefix: the running
// total of the rounds before (every block folds each round's sums in the same association, so
// every block holds the same bits) and the fold of this round's sums before its own. Every
// element is read once and written once; no tile waits for a chain of look-backs, only one
// barrier a round, which the next rounds' loads fly through where the tiles are in a ring of
// buffers (issued as each round starts). The single pass's look-back at 2^23 and 2^24 ints runs 0.91-1.02x
// CUB; one wave (a barrier, no rounds) reaches 1.15-1.2x up to 2^22.6; multi_wave (every tile
// past a block's first read twice) lost. Columns: the library's default dispatch, then
// rounds<Items, MinBlocks, Buffers> (256 threads x Items ints a tile, the blocks an SM asked,
// a ring of one to three tile buffers), with CUB's InclusiveSum (64- and 32-bit offsets) and
// memcpy, in one process; L2 flushed
// before each run, medians of 21, us (ratio to CUB). Inputs are ints 0..3 (exact in any order);
// every form's result must equal CUB's (checked before timing; MISMATCH lines otherwise).
// Not built by CMake; run.sh builds and runs it on the GPU machine.
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <vector>

#include <tilecraft/arch/cp_async.cuh>
#include <tilecraft/arch/grid_sync.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/launch.cuh>

#include "../experiment_util.cuh"

namespace {

constexpr int threads = 256;

// Chunk j (16 bytes) of row r (thread r's run of Items ints, Items / 4 chunks) in a tile buffer:
// the chunks of a row XOR-swizzled so that both the copies' writes (consecutive chunks of the
// input, 8 at a time) and each thread's reads of its own row (LDS.128, 8 rows at a time) meet no
// bank conflict.
template <int Items>
__device__ int chunk_at(int r, int j) {
  constexpr int chunks = Items / 4;
  static_assert(chunks >= 1 && chunks <= 8 && 8 % chunks == 0, "Items: 4, 8, 16 or 32");
  return r * Items + ((j ^ ((r / (8 / chunks)) % chunks)) << 2);
}

// Tile `tile` (ints [tile * T, tile * T + T) of n, T = threads * Items) into buf by cp.async,
// zero-filled past n.
template <int Items>
__device__ void load_tile(const int* in, long long n, long long tile, int* buf) {
  constexpr int chunks = Items / 4;
  constexpr long long tile_items = static_cast<long long>(threads) * Items;
  const long long base = tile * tile_items;
  const long long valid = n - base < tile_items ? n - base : tile_items;
#pragma unroll
  for (int i = 0; i < chunks; ++i) {
    const int c = i * threads + static_cast<int>(threadIdx.x);
    int* dst = buf + chunk_at<Items>(c / chunks, c % chunks);
    if (valid == tile_items) {
      tilecraft::arch::cp_async_cg<16>(dst, in + base + 4 * c);
    } else {
      const long long left = valid - 4 * c;
      const int take = left < 0 ? 0 : left > 4 ? 4 : static_cast<int>(left);
      tilecraft::arch::cp_async_cg_zfill<16>(dst, take > 0 ? in + base + 4 * c : in,
                                             static_cast<unsigned>(take * sizeof(int)));
    }
  }
}

// Buffers B > 1: a ring of B tile buffers, the tile B - 1 rounds ahead issued as each round
// starts (one cp.async group a round, so that waiting for all but the newest B - 2 groups waits
// for this round's tile alone); B = 1: the next tile is loaded after the round's stores.
template <int Items, int MinBlocks, int Buffers>
__global__ void __launch_bounds__(threads, MinBlocks)
    rounds_scan(const int* __restrict__ in, int* __restrict__ sums, int* __restrict__ out, long long n) {
  static_assert(Buffers >= 1 && Buffers <= 4, "one to four tile buffers");
  constexpr int chunks = Items / 4;
  constexpr long long tile_items = static_cast<long long>(threads) * Items;
  using Reduce = cub::BlockReduce<int, threads>;
  using Reduce2 = cub::BlockReduce<int2, threads>;
  using Scan = cub::BlockScan<int, threads>;
  extern __shared__ int4 dynamic[];
  int* const bufs = reinterpret_cast<int*>(dynamic);
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Reduce2::TempStorage reduce2;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ int before_slot, total_slot;
  const int t = static_cast<int>(threadIdx.x);
  const long long grid = gridDim.x;
  const long long tiles = (n + tile_items - 1) / tile_items;
  const long long rounds = (tiles + grid - 1) / grid;
  int carry = 0;  // the rounds before this one, the same in every block
  // The first B - 1 rounds' tiles (one group each, empty where a round has no tile here).
#pragma unroll
  for (int k = 0; k < (Buffers > 1 ? Buffers - 1 : 1); ++k) {
    const long long first = blockIdx.x + k * grid;
    if (first < tiles) load_tile<Items>(in, n, first, bufs + k * tile_items);
    tilecraft::arch::cp_async_commit();
  }
  for (long long r = 0; r < rounds; ++r) {
    const long long tile = r * grid + blockIdx.x;
    int* const buf = bufs + (r % Buffers) * tile_items;
    if constexpr (Buffers > 1) {
      tilecraft::arch::cp_async_wait<Buffers - 2>();
    } else {
      tilecraft::arch::cp_async_wait_all();
    }
    __syncthreads();
    // A ring: the tile B - 1 rounds ahead into the buffer the last round used (its last readers
    // passed the barrier above), so that the copy flies through this round's fold, reduction,
    // grid barrier, scan and stores, and the next rounds'.
    if constexpr (Buffers > 1) {
      const long long ahead = tile + (Buffers - 1) * grid;
      if (ahead < tiles) load_tile<Items>(in, n, ahead, bufs + ((r + Buffers - 1) % Buffers) * tile_items);
      tilecraft::arch::cp_async_commit();
    }
    int own = 0;
    if (tile < tiles) {
#pragma unroll
      for (int j = 0; j < chunks; ++j) {
        const int4 v = *reinterpret_cast<const int4*>(buf + chunk_at<Items>(t, j));
        own += (v.x + v.y) + (v.z + v.w);
      }
    }
    const int tile_sum = Reduce(temp.reduce).Sum(own);
    int* const round_sums = sums + r * grid;
    if (t == 0) round_sums[blockIdx.x] = tile_sum;  // (0 for a block with no tile this round)
    tilecraft::arch::grid_sync();                   // (its barriers also free `temp`)
    // This round's sums: 4 a thread at once (grid <= 1024), folded before this block's and
    // all of them.
    int before = 0, total = 0;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const long long k = 4 * t + q;
      const int v = k < grid ? __ldcg(round_sums + k) : 0;
      total += v;
      before += k < blockIdx.x ? v : 0;
    }
    const int2 both = Reduce2(temp.reduce2).Reduce(make_int2(before, total), [](int2 a, int2 b) {
      return make_int2(a.x + b.x, a.y + b.y);
    });
    if (t == 0) {
      before_slot = both.x;
      total_slot = both.y;
    }
    __syncthreads();
    const int prefix = carry + before_slot;
    carry += total_slot;
    if (tile < tiles) {
      int run = 0;
      Scan(temp.scan).ExclusiveScan(own, run, prefix, cuda::std::plus<int>{});
#pragma unroll
      for (int j = 0; j < chunks; ++j) {
        int4* p = reinterpret_cast<int4*>(buf + chunk_at<Items>(t, j));
        int4 v = *p;
        v.x = run += v.x;
        v.y = run += v.y;
        v.z = run += v.z;
        v.w = run += v.w;
        *p = v;
      }
      __syncthreads();
      const long long base = tile * tile_items;
      const long long valid = n - base < tile_items ? n - base : tile_items;
#pragma unroll
      for (int i = 0; i < chunks; ++i) {
        const int c = i * threads + t;
        const int4 v = *reinterpret_cast<const int4*>(buf + chunk_at<Items>(c / chunks, c % chunks));
        if (valid == tile_items) {
          reinterpret_cast<int4*>(out + base)[c] = v;
        } else {
          const int e[4] = {v.x, v.y, v.z, v.w};
          for (int k = 0; k < 4 && 4 * c + k < valid; ++k) out[base + 4 * c + k] = e[k];
        }
      }
    }
    __syncthreads();  // (every thread's reads of buf and temp done before they are refilled)
    if (Buffers == 1 && r + 1 < rounds && tile + grid < tiles) {
      load_tile<Items>(in, n, tile + grid, bufs);
      tilecraft::arch::cp_async_commit();
    }
  }
}

template <int Items, int Buffers>
constexpr std::size_t dynamic_bytes = static_cast<std::size_t>(Buffers) * threads* Items * sizeof(int);

// The blocks of rounds_scan<Items, MinBlocks, Buffers> resident at once (its dynamic shared
// memory opted into).
template <int Items, int MinBlocks, int Buffers>
long long resident() {
  static long long known = 0;
  if (known > 0) return known;
  auto kernel = rounds_scan<Items, MinBlocks, Buffers>;
  constexpr std::size_t bytes = dynamic_bytes<Items, Buffers>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  int per_sm = 0, sms = 0, dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, bytes));
  return known = static_cast<long long>(per_sm) * sms;
}

template <int Items, int MinBlocks, int Buffers>
void rounds(const int* in, int* sums, int* out, long long n, cudaStream_t s) {
  constexpr long long tile_items = static_cast<long long>(threads) * Items;
  const long long tiles = (n + tile_items - 1) / tile_items;
  // (At most 1024 blocks: the prefix reads 4 sums a thread.)
  const long long wave = std::min(resident<Items, MinBlocks, Buffers>(), 1024LL);
  const long long grid = tiles < wave ? tiles : wave;
  CK(tilecraft::detail::launch_cooperative(rounds_scan<Items, MinBlocks, Buffers>, dim3(static_cast<unsigned>(grid)),
                                           dim3(threads), dynamic_bytes<Items, Buffers>, s, in, sums, out, n));
}

}  // namespace

int main(int argc, char** argv) {
  const auto logs = log2_sizes(argc, argv, {22, 22.58, 23, 23.5, 24, 25, 26, 27, 28});
  const L2Flush l2_flush = l2_flush_buffer();
  char* const flush = l2_flush.ptr;
  const std::size_t flush_bytes = l2_flush.bytes;
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  std::printf(
      "resident blocks: %lld (32 ints, 2 buffers), %lld (16, 2), %lld (32, 1), %lld (16, 1), %lld (8, 2), %lld (16, "
      "3), %lld (8, 3)\n",
      resident<32, 3, 2>(), resident<16, 6, 2>(), resident<32, 6, 1>(), resident<16, 8, 1>(), resident<8, 8, 2>(),
      resident<16, 4, 3>(), resident<8, 8, 3>());
  std::printf("%-8s %9s %9s %9s %15s %15s %15s %15s %15s %15s %15s %15s   (us; ratio to CUB)\n", "n", "memcpy", "cub",
              "cub int", "library", "32 x2 (3)", "16 x2 (6)", "32 x1 (6)", "16 x1 (8)", "8 x2 (8)", "16 x3 (4)",
              "8 x3 (8)");
  for (double lg : logs) {
    const long long n = std::llround(std::pow(2.0, lg));
    std::vector<int> h(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) h[static_cast<std::size_t>(i)] = static_cast<int>(index_hash(i) & 3u);
    int *in, *out, *ref, *sums;
    CK(cudaMalloc(&in, n * sizeof(int)));
    CK(cudaMalloc(&out, n * sizeof(int)));
    CK(cudaMalloc(&ref, n * sizeof(int)));
    CK(cudaMalloc(&sums, (n / 1024 + 2048) * sizeof(int)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, cub32_bytes = 0, lib_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, ref, n));
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub32_bytes, in, ref, static_cast<int>(n)));
    cub_bytes = std::max(cub_bytes, cub32_bytes);
    CK(tilecraft::inclusive_scan(nullptr, lib_bytes, in, out, n, tilecraft::Sum{}));
    void *cub_temp, *lib_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    CK(cudaMalloc(&lib_temp, lib_bytes));
    CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, ref, n, s));
    std::vector<int> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(want.data(), ref, n * sizeof(int), cudaMemcpyDeviceToHost));
    const auto check = [&](const char* what, auto run) {
      CK(cudaMemsetAsync(out, 0xA5, n * sizeof(int), s));
      run();
      CK(cudaStreamSynchronize(s));
      CK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
      long long bad = 0;
      for (long long i = 0; i < n; ++i) bad += got[static_cast<std::size_t>(i)] != want[static_cast<std::size_t>(i)];
      if (bad != 0) std::printf("MISMATCH %s at 2^%.2f: %lld elements\n", what, lg, bad);
    };
    const auto library = [&] { CK(tilecraft::inclusive_scan(lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, s)); };
    const auto variants =
        std::make_tuple([&] { rounds<32, 3, 2>(in, sums, out, n, s); }, [&] { rounds<16, 6, 2>(in, sums, out, n, s); },
                        [&] { rounds<32, 6, 1>(in, sums, out, n, s); }, [&] { rounds<16, 8, 1>(in, sums, out, n, s); },
                        [&] { rounds<8, 8, 2>(in, sums, out, n, s); }, [&] { rounds<16, 4, 3>(in, sums, out, n, s); },
                        [&] { rounds<8, 8, 3>(in, sums, out, n, s); });
    check("library", library);
    {
      const char* names[] = {"32 x2 (3)", "16 x2 (6)", "32 x1 (6)", "16 x1 (8)", "8 x2 (8)", "16 x3 (4)", "8 x3 (8)"};
      int k = 0;
      std::apply([&](auto&... v) { (check(names[k++], v), ...); }, variants);
    }
    CK(cudaGetLastError());
    const float t_copy = median_us([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(int), cudaMemcpyDeviceToDevice, s)); },
                                   flush, flush_bytes, s, 21);
    const float t_cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s)); }, flush,
                                  flush_bytes, s, 21);
    // CUB with 32-bit offsets (every n here is below 2^31; a long long n makes it take 64-bit
    // ones, as the benchmarks do).
    const float t_cub32 =
        median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, static_cast<int>(n), s)); },
                  flush, flush_bytes, s, 21);
    const float t_lib = median_us(library, flush, flush_bytes, s, 21);
    std::printf("2^%-6.2f %9.2f %9.2f %9.2f %7.2f (%.3f)", lg, t_copy, t_cub, t_cub32, t_lib, t_cub / t_lib);
    const auto row = [&](auto& v) {
      const float t = median_us(v, flush, flush_bytes, s, 21);
      std::printf(" %7.2f (%.3f)", t, t_cub / t);
    };
    std::apply([&](auto&... v) { (row(v), ...); }, variants);
    std::printf("\n");
    for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(ref), static_cast<void*>(sums),
                    cub_temp, lib_temp})
      CK(cudaFree(p));
  }
  return 0;
}
