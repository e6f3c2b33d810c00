// One-wave float scans with a grid barrier instead of a look-back: every tile of the input is
// resident at once (a cooperative launch, one tile a block), so each block loads its tile,
// publishes the tile's sum, meets every other block at the grid barrier, folds the sums of the
// tiles before its own (in a fixed order: the same bits on every run), and scans and stores its
// tile. The input is read once and the output written once, as in the single-pass scan, but no
// tile waits for a chain of predecessors: the barrier costs one round of arrivals.
// The prototypes (sixty-seventh session): 256 x 32 floats in registers at 3 blocks an SM (up
// to 2^21.6 floats on an H200), and 256 x 32 held in shared memory at 6 (2^22.63). The library
// took the second as scan_one_wave_kernel (sixty-eighth session), which ran 3-8% behind it; the
// columns between them rebuild the library's kernel from its pieces and change one thing at a
// time (lib_variant). Columns: the library's default dispatch ("library"), its single pass
// alone ("1p"), its two passes forced ("2p"), its one wave forced ("1w"), the rebuilt kernel
// ("copy": the same as 1w, a control), with cp.async loads, with the prefix as the block
// scan's initial value, with the block scan before the barrier ("early"), cp.async and early
// together, cp.async and the initial value together ("cp + init", seventy-second session), then the two prototypes,
// then multi_wave past one wave (2 and at most 3 tiles a block, the first held in shared memory), then (sixty-ninth
// session) the library's one wave in registers forced ("1wr"), the register prototypes at 256 x 16 and 256 x 8, and the
// library's register kernel rebuilt with the prototype's parts swapped in ("rv", reg_variant); with CUB's InclusiveSum
// and memcpy, in one process; L2 flushed before each run, medians of 21, us (ratio to CUB). Inputs are 0 / 1 floats, so
// every inclusive sum below 2^24 is exact and every form's result must equal CUB's bit for bit (checked before timing;
// MISMATCH lines otherwise). Not built by CMake; run.sh builds and runs it on the GPU machine.
#include <cub/cub.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <tuple>
#include <vector>

#include <tilecraft/arch/cp_async.cuh>
#include <tilecraft/arch/grid_sync.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/launch.cuh>

#include "../experiment_util.cuh"

namespace {

constexpr int threads = 256;

// Both kernels' middle: publishes the block's tile sum (the threads' `own` sums folded), meets
// every block at the grid barrier (release / acquire: every tile's sum visible after it), and
// returns to every thread the sum of the tiles before this block's: PrefixLoads sums a thread
// read at once (all in flight), each thread's in tile order, then folded across the block in a
// fixed order (the same bits on every run). `temp` is free on entry and again on return;
// `prefix` is the block's shared word for the broadcast.
template <int PrefixLoads>
__device__ float earlier_tiles(float own, float* sums, typename cub::BlockReduce<float, threads>::TempStorage& temp,
                               float& prefix) {
  using Reduce = cub::BlockReduce<float, threads>;
  const float tile_sum = Reduce(temp).Sum(own);
  if (threadIdx.x == 0) sums[blockIdx.x] = tile_sum;
  tilecraft::arch::grid_sync();  // (its barriers also free `temp` for the second reduction)
  float part[PrefixLoads];
#pragma unroll
  for (int i = 0; i < PrefixLoads; ++i) {
    const unsigned t = threadIdx.x + static_cast<unsigned>(i * threads);
    part[i] = t < blockIdx.x ? __ldcg(sums + t) : 0.0f;
  }
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < PrefixLoads; ++i) acc += part[i];
  for (unsigned t = threadIdx.x + PrefixLoads * threads; t < blockIdx.x; t += threads) acc += __ldcg(sums + t);
  const float p = Reduce(temp).Sum(acc);
  if (threadIdx.x == 0) prefix = p;
  __syncthreads();
  return prefix;
}

// One tile of threads x Items floats a block, its items in registers, MinBlocks blocks an SM
// (the registers a thread may use: 64 for 4, 32 for 8; a wave holds MinBlocks x SMs tiles, and
// an SM at most 2048 threads, so a wave holds at most 2048 x Items floats an SM: 2^22 floats on
// 132 SMs need Items >= 16). PrefixLoads: earlier_tiles'.
template <int Items, int MinBlocks, int PrefixLoads = 4>
__global__ void __launch_bounds__(threads, MinBlocks)
    barrier_scan(const float* __restrict__ in, float* __restrict__ sums, float* __restrict__ out, long long n) {
  using Load = cub::BlockLoad<float, threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<float, threads, Items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Reduce = cub::BlockReduce<float, threads>;
  using Scan = cub::BlockScan<float, threads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ float prefix;
  constexpr int tile = threads * Items;
  const long long base = static_cast<long long>(blockIdx.x) * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);
  float items[Items];
  if (valid == tile) {
    Load(temp.load).Load(in + base, items);
  } else {
    Load(temp.load).Load(in + base, items, valid, 0.0f);
  }
  float own = 0.0f;
#pragma unroll
  for (int i = 0; i < Items; ++i) own += items[i];
  __syncthreads();  // (temp: the load's, then the reduction's)
  const float pre = earlier_tiles<PrefixLoads>(own, sums, temp.reduce, prefix);
  Scan(temp.scan).InclusiveScan(items, items, pre, cuda::std::plus<float>{});  // pre folded in first
  __syncthreads();
  if (valid == tile) {
    Store(temp.store).Store(out + base, items);
  } else {
    Store(temp.store).Store(out + base, items, valid);
  }
}

// The same with the tile kept in shared memory, so that a thread holds no items in registers
// across the barrier and a wave takes as many tiles as shared memory holds (six 32 KiB tiles an
// SM: 2^22.63 floats on 132 SMs). The tile arrives by cp.async (16 bytes a copy, in the order
// of the input: coalesced), each thread's run of 32 floats in a row of 128 bytes whose 16-byte
// chunks are XOR-swizzled by the row (chunk j of row r at j ^ (r % 8)): the copies' writes and
// the runs' LDS.128 reads meet no bank conflict. Each thread sums its run, the tile's sum goes
// out, the barrier, the prefix (earlier_tiles), then an exclusive block scan of the runs' sums seeds
// each run's scan in place, and the tile goes out in the input's order again.
template <int MinBlocks, int PrefixLoads = 4>
__global__ void __launch_bounds__(threads, MinBlocks)
    barrier_scan_smem(const float* __restrict__ in, float* __restrict__ sums, float* __restrict__ out, long long n) {
  constexpr int items = 32;          // a thread's run
  constexpr int chunks = items / 4;  // its 16-byte chunks
  constexpr int tile = threads * items;
  using Reduce = cub::BlockReduce<float, threads>;
  using Scan = cub::BlockScan<float, threads>;
  __shared__ alignas(16) float rows[threads * items];
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ float prefix;
  // Chunk j of row r: floats r * items + ((j ^ (r % 8)) * 4) ... + 3.
  const auto at = [](int r, int j) { return r * items + ((j ^ (r & 7)) << 2); };
  const long long base = static_cast<long long>(blockIdx.x) * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);
#pragma unroll
  for (int i = 0; i < chunks; ++i) {
    const int c = i * threads + static_cast<int>(threadIdx.x);  // the tile's chunk c
    float* dst = rows + at(c / chunks, c % chunks);
    if (valid == tile) {
      tilecraft::arch::cp_async_cg<16>(dst, in + base + 4 * c);
    } else {
      const int left = valid - 4 * c;  // floats of this chunk inside the input
      const int take = left < 0 ? 0 : left > 4 ? 4 : left;
      tilecraft::arch::cp_async_cg_zfill<16>(dst, take > 0 ? in + base + 4 * c : in,
                                             static_cast<unsigned>(take * sizeof(float)));
    }
  }
  tilecraft::arch::cp_async_commit();
  tilecraft::arch::cp_async_wait_all();
  __syncthreads();
  const int r = static_cast<int>(threadIdx.x);
  float own = 0.0f;
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    const float4 v = *reinterpret_cast<const float4*>(rows + at(r, j));
    own += ((v.x + v.y) + (v.z + v.w));
  }
  const float pre = earlier_tiles<PrefixLoads>(own, sums, temp.reduce, prefix);
  float running = 0.0f;
  Scan(temp.scan).ExclusiveScan(own, running, pre, cuda::std::plus<float>{});  // pre + the runs before
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    float4* v = reinterpret_cast<float4*>(rows + at(r, j));
    float4 x = *v;
    x.x = running += x.x;
    x.y = running += x.y;
    x.z = running += x.z;
    x.w = running += x.w;
    *v = x;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < chunks; ++i) {
    const int c = i * threads + static_cast<int>(threadIdx.x);
    const float4 x = *reinterpret_cast<const float4*>(rows + at(c / chunks, c % chunks));
    if (valid == tile) {
      reinterpret_cast<float4*>(out + base)[c] = x;
    } else {
      const float e[4] = {x.x, x.y, x.z, x.w};
      for (int k = 0; k < 4 && 4 * c + k < valid; ++k) out[base + 4 * c + k] = e[k];
    }
  }
}

// The library's one-wave tile of floats (256 x 32, staged in shared memory) and the two steps
// on it that lib_variant and multi_wave share: a thread's run folded from the stage, and the run
// rescanned in place from the thread's prefix.
using WaveStage = tilecraft::detail::TileStage<float, threads, 32>;
constexpr int wave_chunks = WaveStage::chunks_per_thread;
constexpr long long wave_tile = threads * 32;
__device__ float run_total(unsigned char* stage) {
  const int t = static_cast<int>(threadIdx.x);
  float part[wave_chunks];
#pragma unroll
  for (int k = 0; k < wave_chunks; ++k) {
    const uint4 w = *WaveStage::chunk(stage, t * wave_chunks + k);
    float x[4];
    std::memcpy(x, &w, 16);
    part[k] = (x[0] + x[1]) + (x[2] + x[3]);
  }
  return tilecraft::detail::fold_tree<0, wave_chunks>(part, tilecraft::Sum{});
}
__device__ void rescan_run(unsigned char* stage, float prefix) {
  const int t = static_cast<int>(threadIdx.x);
  float run = prefix;
#pragma unroll
  for (int k = 0; k < wave_chunks; ++k) {
    uint4* p = WaveStage::chunk(stage, t * wave_chunks + k);
    uint4 w = *p;
    float x[4];
    std::memcpy(x, &w, 16);
#pragma unroll
    for (int j = 0; j < 4; ++j) x[j] = run += x[j];
    std::memcpy(&w, x, 16);
    *p = w;
  }
}

// The library's one-wave kernel (scan_one_wave_kernel: scan_tile_two_pass with GridPrefix,
// 256 x 32 floats in shared memory) rebuilt from the library's pieces, with the differences to
// barrier_scan_smem above one at a time (sixty-eighth session: the library's kernel ran 3-8%
// behind that prototype of the same tile and occupancy). CpAsync: the tile arrives by cp.async
// (the library's TileStage::stage_in loads runs of up to 8 vectors into registers first).
// PrefixForm: how each thread gets its exclusive prefix, earlier tiles included:
enum PrefixForm : int {
  // the library's: block_reduce of the thread totals, the barrier, the earlier tiles' fold, then
  // block_exclusive_scan with KnownPrefix (thread 0's value, applied inside the scan: one
  // barrier more than a scan with an initial value);
  prefix_callback = 0,
  // the same, the fold broadcast through shared memory and given to every thread as the scan's
  // initial value (the prototype's way);
  prefix_initial = 1,
  // the block scan of the thread totals before the barrier (its aggregate is the tile's fold,
  // so no block_reduce), and after the barrier only the earlier tiles' fold, its broadcast and
  // one op per thread: the block scan off the path between the barrier and the stores.
  prefix_early = 2,
};
template <bool CpAsync, int Prefix>
__global__ void __launch_bounds__(threads)
    lib_variant(const float* __restrict__ in, float* __restrict__ sums, float* __restrict__ out, long long n) {
  using Policy = tilecraft::detail::DefaultScanPolicyOneWave<float, float>;
  using Stage = tilecraft::detail::TileStage<float, Policy::threads, Policy::items>;
  constexpr int chunks = Stage::chunks_per_thread;
  static_assert(Policy::threads == threads && chunks == 8, "the library's one-wave tile of floats: 256 x 32");
  __shared__ alignas(16) unsigned char stage[Stage::bytes];
  __shared__ tilecraft::BlockScanStorage<float, threads, Policy::block_algorithm> temp;
  __shared__ tilecraft::BlockReduceStorage<float, threads> reduce_temp;
  __shared__ float before_slot;
  const tilecraft::Sum op{};
  const long long tile = blockIdx.x;
  const long long base = tile * Policy::tile_items;
  const int valid = static_cast<int>(n - base < Policy::tile_items ? n - base : Policy::tile_items);
  const int t = static_cast<int>(threadIdx.x);
  if (CpAsync && valid == Policy::tile_items) {
    const uint4* g = reinterpret_cast<const uint4*>(in + base);
#pragma unroll
    for (int k = 0; k < chunks; ++k)
      tilecraft::copy_async<16>(Stage::chunk(stage, k * threads + t), g + k * threads + t);
    tilecraft::copy_async_commit();
    tilecraft::copy_async_wait<0>();
    __syncthreads();
  } else {
    Stage::template stage_in<tilecraft::CacheHint::normal>(true, in + base, valid, stage);
  }
  const float total = run_total(stage);
  float prefix = 0.0f;
  if constexpr (Prefix == prefix_early) {
    float tile_sum = 0.0f;
    const float within = tilecraft::block_exclusive_scan(temp, total, op, 0.0f, tile_sum);
    if (t == 0) sums[tile] = tile_sum;
    tilecraft::arch::grid_sync();
    const float before = tile > 0 ? tilecraft::detail::fold_sums_before<threads>(sums, tile, op, reduce_temp) : 0.0f;
    if (t == 0) before_slot = before;
    __syncthreads();
    prefix = before_slot + within;
  } else {
    const float tile_sum = tilecraft::block_reduce(reduce_temp, total, op);
    if (t == 0) sums[tile] = tile_sum;
    tilecraft::arch::grid_sync();
    const float before = tile > 0 ? tilecraft::detail::fold_sums_before<threads>(sums, tile, op, reduce_temp) : 0.0f;
    if constexpr (Prefix == prefix_callback) {
      tilecraft::detail::KnownPrefix<float> known{before};
      prefix = tilecraft::block_exclusive_scan(temp, total, op, known);
    } else {
      if (t == 0) before_slot = before;
      __syncthreads();
      prefix = tilecraft::block_exclusive_scan(temp, total, op, before_slot);
    }
  }
  rescan_run(stage, prefix);
  __syncthreads();
  Stage::template stage_out<tilecraft::CacheHint::normal>(true, out + base, valid, stage);
}

// The library's one wave in registers (scan_one_wave_registers_kernel at its small tile: 256 x 8
// floats, 6 blocks an SM) rebuilt from the library's pieces, with the prototype's parts
// (barrier_scan<8, 6>) swapped in (sixty-ninth session, prepared: the library's kernel ran 0.5-0.8
// us behind that prototype, inside the kernel by Nsight Compute). Parts, bits:
//   1: loads and stores by CUB's BLOCK_LOAD / BLOCK_STORE_WARP_TRANSPOSE (a warp's segment
//      through shared memory, __syncwarp only) instead of TileStage's block-wide staging (16-byte
//      vectors, a __syncthreads each way);
//   2: the prefix as the prototype takes it (4 sums a thread loaded at once, a block reduction,
//      a broadcast, then the block scan with that initial value) instead of fold_sums_before's
//      runs, a partial block_reduce to thread 0 and the KnownPrefix callback inside block_scan;
//   4 (with 2): CUB's BlockReduce and BlockScan instead of tilecraft's block_reduce and
//      block_scan.
// 0 is the library's kernel, 7 the prototype.
constexpr int rv_items = 8;
constexpr long long rv_tile = threads * rv_items;
template <int Parts>
__global__ void __launch_bounds__(threads, 6)
    reg_variant(const float* __restrict__ in, float* __restrict__ sums, float* __restrict__ out, long long n) {
  constexpr bool cub_io = (Parts & 1) != 0, proto_prefix = (Parts & 2) != 0, cub_block = (Parts & 4) != 0;
  static_assert(proto_prefix || !cub_block, "CUB's block primitives only with the prototype's prefix");
  using Policy = tilecraft::detail::DefaultScanPolicyOneWaveSmall<float, float>;
  static_assert(Policy::threads == threads && Policy::items == rv_items, "the library's small one-wave tile");
  using Stage = tilecraft::detail::TileStage<float, threads, rv_items>;
  using Load = cub::BlockLoad<float, threads, rv_items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<float, threads, rv_items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using CubReduce = cub::BlockReduce<float, threads>;
  using CubScan = cub::BlockScan<float, threads>;
  __shared__ alignas(16) unsigned char stage[cub_io ? 16 : Stage::bytes];
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename CubReduce::TempStorage reduce;
    typename CubScan::TempStorage scan;
  } cub_temp;
  __shared__ tilecraft::BlockScanStorage<float, threads, Policy::block_algorithm> temp;
  __shared__ tilecraft::BlockReduceStorage<float, threads> reduce_temp;
  __shared__ float prefix_slot;
  const tilecraft::Sum op{};
  const long long tile = blockIdx.x;
  const long long base = tile * rv_tile;
  const int valid = static_cast<int>(n - base < rv_tile ? n - base : rv_tile);
  const int t = static_cast<int>(threadIdx.x);
  float a[rv_items];
  if constexpr (cub_io) {
    if (valid == rv_tile) {
      Load(cub_temp.load).Load(in + base, a);
    } else {
      Load(cub_temp.load).Load(in + base, a, valid, 0.0f);
    }
    __syncthreads();  // (cub_temp again below)
  } else {
    tilecraft::detail::load_tile_as<Policy>(true, in, n, tile, stage, a);
  }
  float tile_sum;
  if constexpr (cub_block) {
    float own = 0.0f;
#pragma unroll
    for (int i = 0; i < rv_items; ++i) own += a[i];
    tile_sum = CubReduce(cub_temp.reduce).Sum(own);
  } else {
    tile_sum = tilecraft::block_reduce(reduce_temp, a, op);
  }
  if (t == 0) sums[tile] = tile_sum;
  tilecraft::arch::grid_sync();
  if constexpr (proto_prefix) {
    float part[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const unsigned k = threadIdx.x + static_cast<unsigned>(i * threads);
      part[i] = k < blockIdx.x ? __ldcg(sums + k) : 0.0f;
    }
    float acc = (part[0] + part[1]) + (part[2] + part[3]);
    for (unsigned k = threadIdx.x + 4 * threads; k < blockIdx.x; k += threads) acc += __ldcg(sums + k);
    float p;
    if constexpr (cub_block) {
      p = CubReduce(cub_temp.reduce).Sum(acc);
    } else {
      p = tilecraft::block_reduce(reduce_temp, acc, op);
    }
    if (t == 0) prefix_slot = p;
    __syncthreads();
    const float pre = prefix_slot;
    if constexpr (cub_block) {
      CubScan(cub_temp.scan).InclusiveScan(a, a, pre, cuda::std::plus<float>{});
    } else {
      tilecraft::detail::block_scan<false, false>(temp, a, a, op, 0, tilecraft::detail::ScanInitPrefix<float>{pre},
                                                  static_cast<float*>(nullptr));
    }
  } else {
    tilecraft::detail::scan_registers_after_sums<false>(temp, reduce_temp, a, tile, sums, op, 0.0f);
  }
  if constexpr (cub_io) {
    __syncthreads();
    if (valid == rv_tile) {
      Store(cub_temp.store).Store(out + base, a);
    } else {
      Store(cub_temp.store).Store(out + base, a, valid);
    }
  } else {
    tilecraft::detail::store_tile_as<Policy>(true, out, tile, valid, stage, a);
  }
}

// Past one wave (sixty-eighth session, prepared, not yet run): a cooperative grid of at most one
// wave of blocks, block b taking tiles b, b + grid, b + 2 grid, ... It holds its first tile in
// shared memory (as lib_variant does) and streams its other tiles through registers only to sum
// them; every tile's sum goes out before the grid barrier. After it the block scans and stores
// its held tile, then loads each other tile again (from L2, where the first reading left it:
// 2^23 floats are 32 MiB, 7 of them past the held tiles on an H200), scans and stores it. DRAM
// sees one read and one write of each element as long as the tiles read twice stay in L2 (at
// 2^24, 40 MiB of them against 50 MB of L2, beside the output's writes: the size that tells).
// At 2^23 CUB took 30.7 us and the single pass 33.0 (0.93x); memcpy 20.5. Tiles: the most a
// block takes, unrolled (a run-time loop over the tiles, even of one trip, took ptxas from 40 to
// 96-128 registers).
template <int Tiles>
__global__ void __launch_bounds__(threads, 6)
    multi_wave(const float* __restrict__ in, float* __restrict__ sums, float* __restrict__ out, long long n) {
  using Policy = tilecraft::detail::DefaultScanPolicyOneWave<float, float>;
  static_assert(Policy::tile_items == wave_tile, "the library's one-wave tile of floats: 256 x 32");
  __shared__ alignas(16) unsigned char stage[WaveStage::bytes];
  __shared__ tilecraft::BlockScanStorage<float, threads, Policy::block_algorithm> temp;
  __shared__ tilecraft::BlockReduceStorage<float, threads> reduce_temp;
  __shared__ float before_slot;
  const tilecraft::Sum op{};
  const long long tiles = (n + wave_tile - 1) / wave_tile;
  const long long grid = gridDim.x;
  const long long held = blockIdx.x;
  const int t = static_cast<int>(threadIdx.x);
  const auto valid_of = [&](long long tile) {
    const long long left = n - tile * wave_tile;
    return static_cast<int>(left < wave_tile ? left : wave_tile);
  };
  // Before the barrier: the held tile staged and summed, then the others summed on the way past.
  WaveStage::stage_in<tilecraft::CacheHint::normal>(true, in + held * wave_tile, valid_of(held), stage);
  const float held_total = run_total(stage);
  {
    const float sum = tilecraft::block_reduce(reduce_temp, held_total, op);
    if (t == 0) sums[held] = sum;
  }
#pragma unroll
  for (int k = 1; k < Tiles; ++k) {
    const long long tile = held + k * grid;
    if (tile >= tiles) break;
    const int valid = valid_of(tile);
    const float* src = in + tile * wave_tile;
    float acc = 0.0f;
    if (valid == wave_tile) {
      const float4* g = reinterpret_cast<const float4*>(src);
#pragma unroll
      for (int half = 0; half < 2; ++half) {  // (4 vectors in flight at a time: 8 spilled 32-92 bytes)
        float4 v[wave_chunks / 2];
#pragma unroll
        for (int c = 0; c < wave_chunks / 2; ++c) v[c] = g[(half * wave_chunks / 2 + c) * threads + t];
#pragma unroll
        for (int c = 0; c < wave_chunks / 2; ++c) acc += (v[c].x + v[c].y) + (v[c].z + v[c].w);
      }
    } else {
      for (int e = t; e < valid; e += threads) acc += src[e];
    }
    __syncthreads();  // (reduce_temp: the previous reduction's readers are done)
    const float sum = tilecraft::block_reduce(reduce_temp, acc, op);
    if (t == 0) sums[tile] = sum;
  }
  tilecraft::arch::grid_sync();
  // After it: the held tile from shared memory, then the others again.
#pragma unroll
  for (int k = 0; k < Tiles; ++k) {
    const long long tile = held + k * grid;
    if (tile >= tiles) break;
    const int valid = valid_of(tile);
    float own = held_total;
    if (tile != held) {
      __syncthreads();  // every thread's stores of the tile before read the stage
      WaveStage::stage_in<tilecraft::CacheHint::normal>(true, in + tile * wave_tile, valid, stage);
      own = run_total(stage);
    }
    const float before = tile > 0 ? tilecraft::detail::fold_sums_before<threads>(sums, tile, op, reduce_temp) : 0.0f;
    if (t == 0) before_slot = before;
    __syncthreads();
    const float prefix = tilecraft::block_exclusive_scan(temp, own, op, before_slot);
    rescan_run(stage, prefix);
    __syncthreads();
    WaveStage::stage_out<tilecraft::CacheHint::normal>(true, out + tile * wave_tile, valid, stage);
  }
}

// The blocks of Kernel (threads a block, DynamicBytes of dynamic shared memory, opted in where
// there are any) the device holds at once.
template <auto Kernel, std::size_t DynamicBytes = 0>
long long resident_blocks() {
  static long long known = 0;  // (asked once: the launches below are timed)
  if (known > 0) return known;
  if constexpr (DynamicBytes > 0) CK(tilecraft::opt_in_dynamic_smem(Kernel, DynamicBytes));
  int per_sm = 0, sms = 0, dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, DynamicBytes));
  return known = static_cast<long long>(per_sm) * sms;
}

// The library's split one wave over floats (scan_one_wave_split_kernel, inclusive), its dynamic
// shared memory, and its tile. (Its Direct form, the register part straight from and to global
// memory, ran 22-25% behind it at 2^22.58-2^23.2 and was taken out: benchmarks/TUNING.md.)
namespace split {
namespace d = tilecraft::detail;
using Shared = d::DefaultScanPolicyOneWaveSplit<float, float>;
using Registers = d::DefaultScanPolicyOneWave<float, float>;
static_assert(Shared::threads == threads);
constexpr auto kernel = d::scan_one_wave_split_kernel<Shared, Registers, d::one_wave_split_min_blocks, false, float,
                                                      float, float, tilecraft::Sum>;
constexpr std::size_t bytes = d::stage_bytes_of<Shared, float, float>();
constexpr long long tile_items = Shared::tile_items + Registers::tile_items;
// Its tiles over n floats where they fit one wave (two or more), else 0.
long long wave_tiles(long long n) {
  const long long tiles = (n + tile_items - 1) / tile_items;
  return tiles >= 2 && tiles <= resident_blocks<kernel, bytes>() ? tiles : 0;
}
}  // namespace split

// Launches Kernel over n floats in tiles of TileItems, cooperatively; false where its tiles do
// not fit one wave.
template <auto Kernel, long long TileItems>
bool cooperative_scan(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  const long long tiles = (n + TileItems - 1) / TileItems;
  if (tiles > resident_blocks<Kernel>()) return false;
  CK(tilecraft::detail::launch_cooperative(Kernel, dim3(static_cast<unsigned>(tiles)), dim3(threads), 0, s, in, sums,
                                           out, n));
  return true;
}

// The forms: barrier_scan<Items, MinBlocks> and barrier_scan_smem<MinBlocks>.
template <int Items, int MinBlocks>
bool barrier(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  return cooperative_scan<barrier_scan<Items, MinBlocks>, threads * Items>(in, sums, out, n, s);
}
template <int MinBlocks>
bool barrier_smem(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  return cooperative_scan<barrier_scan_smem<MinBlocks>, threads * 32>(in, sums, out, n, s);
}
// multi_wave over n floats: a wave of blocks at most, each taking every grid-th tile, Tiles at
// most; false where a wave of blocks taking that many falls short.
template <int Tiles>
bool multi_wave_scan(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  const long long tiles = (n + wave_tile - 1) / wave_tile;
  const long long resident = resident_blocks<multi_wave<Tiles>>();
  if (tiles > Tiles * resident) return false;
  const long long grid = tiles < resident ? tiles : resident;
  CK(tilecraft::detail::launch_cooperative(multi_wave<Tiles>, dim3(static_cast<unsigned>(grid)), dim3(threads), 0, s,
                                           in, sums, out, n));
  return true;
}
template <int Parts>
bool register_variant(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  return cooperative_scan<reg_variant<Parts>, rv_tile>(in, sums, out, n, s);
}
template <bool CpAsync, int Prefix>
bool library_variant(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  return cooperative_scan<lib_variant<CpAsync, Prefix>, threads * 32>(in, sums, out, n, s);
}

}  // namespace

int main(int argc, char** argv) {
  const auto logs = log2_sizes(argc, argv, {20, 21, 21.58, 22, 22.32, 22.58, 23, 23.5, 24});
  const L2Flush l2_flush = l2_flush_buffer();
  char* const flush = l2_flush.ptr;
  const std::size_t flush_bytes = l2_flush.bytes;
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  std::printf(
      "resident blocks: %lld of 256 x 32 (3 an SM asked), %lld of 256 x 32 in shared memory (6), %lld and %lld of the "
      "library's rebuilt (copy, cp + early), %lld and %lld of multi_wave (2, 3 a block)\n",
      resident_blocks<barrier_scan<32, 3>>(), resident_blocks<barrier_scan_smem<6>>(),
      resident_blocks<lib_variant<false, prefix_callback>>(), resident_blocks<lib_variant<true, prefix_early>>(),
      resident_blocks<multi_wave<2>>(), resident_blocks<multi_wave<3>>());
  std::printf(
      "resident blocks: %lld and %lld of the library's one wave in registers (2048, 8192 a tile), %lld of 256 x 16 "
      "(4), %lld of 256 x 8 (6)\n",
      resident_blocks<tilecraft::detail::scan_one_wave_registers_kernel<
          tilecraft::detail::DefaultScanPolicyOneWaveSmall<float, float>,
          tilecraft::detail::one_wave_small_min_blocks<float>, false, float, float, float, tilecraft::Sum>>(),
      resident_blocks<tilecraft::detail::scan_one_wave_registers_kernel<
          tilecraft::detail::DefaultScanPolicyOneWave<float, float>, tilecraft::detail::one_wave_registers_min_blocks,
          false, float, float, float, tilecraft::Sum>>(),
      resident_blocks<barrier_scan<16, 4>>(), resident_blocks<barrier_scan<8, 6>>());
  std::printf(
      "%-8s %9s %9s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s "
      "%14s %14s %14s %14s %14s   (us; ratio to CUB)\n",
      "n", "memcpy", "cub", "library", "library 1p", "library 2p", "library 1w", "library 1wr", "library 1ws",
      "256x16 (4)", "256x8 (6)", "copy", "cp.async", "init", "early", "cp + early", "cp + init", "256x32 (3)",
      "smem 256x32", "2 a block", "3 a block", "rv lib", "rv cub io", "rv prefix", "rv io+pre", "rv pre+blk",
      "rv all cub");
  for (double lg : logs) {
    const long long n = std::llround(std::pow(2.0, lg));
    std::vector<float> h(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) h[static_cast<std::size_t>(i)] = static_cast<float>(index_hash(i) & 1u);
    float *in, *out, *ref, *sums;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMalloc(&ref, n * sizeof(float)));
    CK(cudaMalloc(&sums, (n / 2048 + 1) * sizeof(float)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, lib_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, ref, n));
    CK(tilecraft::inclusive_scan(nullptr, lib_bytes, in, out, n, tilecraft::Sum{}));
    void *cub_temp, *lib_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    CK(cudaMalloc(&lib_temp, lib_bytes));
    CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, ref, n, s));
    std::vector<float> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(want.data(), ref, n * sizeof(float), cudaMemcpyDeviceToHost));
    // Each form once on a poisoned output, compared with CUB's; false: it does not apply here.
    auto verified = [&](const char* what, auto run) {
      CK(cudaMemsetAsync(out, 0xA5, n * sizeof(float), s));
      if (!run()) return false;
      CK(cudaStreamSynchronize(s));
      CK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
      long long bad = 0;
      for (long long i = 0; i < n; ++i) bad += got[static_cast<std::size_t>(i)] != want[static_cast<std::size_t>(i)];
      if (bad != 0) std::printf("MISMATCH %s at 2^%.2f: %lld elements\n", what, lg, bad);
      return true;
    };
    const auto library = [&] {
      CK(tilecraft::inclusive_scan(lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, s));
      return true;
    };
    // The library's own two passes, forced at every size (its default dispatch takes them where
    // input and output fit half the L2).
    const auto library_two_pass = [&] {
      CK((tilecraft::detail::scan_run<tilecraft::detail::DefaultScanPolicyLarge<float, float>, false,
                                      tilecraft::detail::ScanForms::two_pass>(lib_temp, lib_bytes, in, out, n,
                                                                              tilecraft::Sum{}, 0.0f, s)));
      return true;
    };
    // Its single pass alone (its dispatch before the one-wave form).
    const auto library_one_pass = [&] {
      CK((tilecraft::detail::scan_run<tilecraft::detail::DefaultScanPolicyLarge<float, float>, false>(
          lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, 0.0f, s)));
      return true;
    };
    // Its one-wave form forced (at every size where its tiles fit one wave).
    const auto library_one_wave = [&] {
      // (Past one wave the forced form falls back to the single pass: that is no 1w figure.)
      using OneWave = tilecraft::detail::DefaultScanPolicyOneWave<float, float>;
      if ((n + OneWave::tile_items - 1) / OneWave::tile_items >
          resident_blocks<
              tilecraft::detail::scan_one_wave_kernel<OneWave, false, float, float, float, tilecraft::Sum>>())
        return false;
      CK((tilecraft::detail::scan_run<tilecraft::detail::DefaultScanPolicyLarge<float, float>, false,
                                      tilecraft::detail::ScanForms::one_wave>(lib_temp, lib_bytes, in, out, n,
                                                                              tilecraft::Sum{}, 0.0f, s)));
      return true;
    };
    // Its one wave in registers forced (sixty-ninth session: scan_one_wave_registers_kernel, 32
    // bytes a thread up to 4 MiB moved, 128 above).
    const auto library_one_wave_registers = [&] {
      namespace d = tilecraft::detail;
      using Small = d::DefaultScanPolicyOneWaveSmall<float, float>;
      using Large = d::DefaultScanPolicyOneWave<float, float>;
      const bool small = 8 * n <= d::one_wave_small_max_bytes;
      const long long tiles =
          small ? (n + Small::tile_items - 1) / Small::tile_items : (n + Large::tile_items - 1) / Large::tile_items;
      const long long resident =
          small ? resident_blocks<d::scan_one_wave_registers_kernel<Small, d::one_wave_small_min_blocks<float>, false,
                                                                    float, float, float, tilecraft::Sum>>()
                : resident_blocks<d::scan_one_wave_registers_kernel<Large, d::one_wave_registers_min_blocks, false,
                                                                    float, float, float, tilecraft::Sum>>();
      if (tiles < 2 || tiles > resident) return false;
      CK((d::scan_run<d::DefaultScanPolicyLarge<float, float>, false, d::ScanForms::one_wave_registers>(
          lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, 0.0f, s)));
      return true;
    };
    // Its one wave with each tile split (seventieth session: scan_one_wave_split_kernel, 64 KiB
    // in shared memory and 32 KiB in registers a tile, three an SM).
    const auto library_one_wave_split = [&] {
      if (split::wave_tiles(n) == 0) return false;
      CK((tilecraft::detail::scan_run<tilecraft::detail::DefaultScanPolicyLarge<float, float>, false,
                                      tilecraft::detail::ScanForms::one_wave_split>(lib_temp, lib_bytes, in, out, n,
                                                                                    tilecraft::Sum{}, 0.0f, s)));
      return true;
    };
    const auto variants = std::make_tuple(
        library_one_pass, library_two_pass, library_one_wave, library_one_wave_registers, library_one_wave_split,
        [&] { return barrier<16, 4>(in, sums, out, n, s); }, [&] { return barrier<8, 6>(in, sums, out, n, s); },
        [&] { return library_variant<false, prefix_callback>(in, sums, out, n, s); },
        [&] { return library_variant<true, prefix_callback>(in, sums, out, n, s); },
        [&] { return library_variant<false, prefix_initial>(in, sums, out, n, s); },
        [&] { return library_variant<false, prefix_early>(in, sums, out, n, s); },
        [&] { return library_variant<true, prefix_early>(in, sums, out, n, s); },
        [&] { return library_variant<true, prefix_initial>(in, sums, out, n, s); },
        [&] { return barrier<32, 3>(in, sums, out, n, s); }, [&] { return barrier_smem<6>(in, sums, out, n, s); },
        [&] { return multi_wave_scan<2>(in, sums, out, n, s); },
        [&] { return multi_wave_scan<3>(in, sums, out, n, s); },
        [&] { return register_variant<0>(in, sums, out, n, s); },
        [&] { return register_variant<1>(in, sums, out, n, s); },
        [&] { return register_variant<2>(in, sums, out, n, s); },
        [&] { return register_variant<3>(in, sums, out, n, s); },
        [&] { return register_variant<6>(in, sums, out, n, s); },
        [&] { return register_variant<7>(in, sums, out, n, s); });
    verified("library", library);
    bool applies[std::tuple_size_v<decltype(variants)>] = {};
    {
      const char* names[] = {"library 1p", "library 2p", "library 1w",  "library 1wr", "library 1ws", "256x16 (4)",
                             "256x8 (6)",  "copy",       "cp.async",    "init",        "early",       "cp + early",
                             "cp + init",  "256x32 (3)", "smem 256x32", "2 a block",   "3 a block",   "rv lib",
                             "rv cub io",  "rv prefix",  "rv io+pre",   "rv pre+blk",  "rv all cub"};
      static_assert(std::size(names) == std::tuple_size_v<decltype(variants)>);
      int k = 0;
      std::apply([&](auto&... v) { ((applies[k] = verified(names[k], v), ++k), ...); }, variants);
    }
    CK(cudaGetLastError());
    const float t_copy =
        median_us([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice, s)); }, flush,
                  flush_bytes, s, 21);
    const float t_cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s)); }, flush,
                                  flush_bytes, s, 21);
    const float t_lib = median_us([&] { library(); }, flush, flush_bytes, s, 21);
    std::printf("2^%-6.2f %9.2f %9.2f %7.2f (%.3f)", lg, t_copy, t_cub, t_lib, t_cub / t_lib);
    int k = 0;
    const auto row = [&](auto& v) {
      if (!applies[k++]) {
        std::printf(" %14s", "(> one wave)");
        return;
      }
      const float t = median_us([&] { v(); }, flush, flush_bytes, s, 21);
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
