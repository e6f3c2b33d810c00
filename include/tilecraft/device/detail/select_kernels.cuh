//! \file device/detail/select_kernels.cuh
//! tilecraft::select_if / partition's kernel: a single-pass scan of the kept counts with
//! decoupled look-back, and a compaction through shared memory (internal; include
//! device/select.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../block/block_scan.cuh"
#include "../../config.cuh"
#include "../../util/functional.cuh"
#include "scan_kernels.cuh"
#include "scan_tile_state.cuh"

namespace tilecraft::detail {

#if defined(__CUDACC__)

// One tile of select_if (Partition false) or partition (true), one block per tile taken from
// the counter. Each thread flags its items, the block scans the flags (the tile's first kept
// item's global rank comes from the look-back), the kept items (and, for partition, the
// rejected ones after them) are compacted in shared memory in order, and the block writes them
// out coalesced: kept item k of the tile to out[prefix + k]; rejected item q (global rank) to
// out[n - 1 - q]. The last tile writes the kept count.
template <class Policy, bool Partition, class In, class Offset, class Pred, class NumSelected>
__global__ void __launch_bounds__(Policy::threads)
    select_kernel(const In* in, In* out, std::int64_t n, Pred pred, NumSelected* num_selected,
                  TileStatus<Offset> status, unsigned* counter, bool vector, bool single_tile) {
  constexpr int threads = Policy::threads;
  constexpr int items = Policy::items;
  constexpr int elems = Policy::tile_items;
  using Stage = TileStage<In, threads, items>;
  __shared__ alignas(16) unsigned char stage[Stage::bytes];
  __shared__ BlockScanStorage<Offset, threads, Policy::block_algorithm> temp;
  __shared__ unsigned ticket;
  __shared__ Offset tile_prefix;
  __shared__ Offset tile_kept;
  __shared__ Offset look_back_buf[warp_threads];
  if (threadIdx.x == 0) ticket = single_tile ? 0u : atomicAdd(counter, 1u);
  __syncthreads();
  const std::int64_t tile = ticket;
  const std::int64_t base = tile * elems;
  const std::int64_t left = n - base;
  const int valid = left < elems ? static_cast<int>(left) : elems;
  const int t = static_cast<int>(threadIdx.x);

  In x[items];
  Stage::template load<Policy::hint>(vector, in + base, valid, stage, x);
  Offset rank[items];
#pragma unroll
  for (int j = 0; j < items; ++j) rank[j] = (t * items + j < valid && pred(x[j])) ? Offset{1} : Offset{0};
  bool kept[items];
#pragma unroll
  for (int j = 0; j < items; ++j) kept[j] = rank[j] != 0;
  if (tile == 0) {
    FirstTileCallback<Offset, TileStatus<Offset>, Sum> first{status, Sum{}, Offset{0}, &tile_prefix, &tile_kept};
    block_exclusive_scan(temp, rank, rank, Sum{}, first);
  } else {
    LookBackCallback<Offset, TileStatus<Offset>, Sum> look_back{status,        tile,         Sum{},
                                                                look_back_buf, &tile_prefix, &tile_kept};
    block_exclusive_scan(temp, rank, rank, Sum{}, look_back);
  }
  // block_scan's barrier after the callback published tile_prefix / tile_kept; every thread
  // has read its items from the stage before it.
  const Offset prefix = tile_prefix;
  const Offset kept_here = tile_kept;
  In* staged = reinterpret_cast<In*>(stage);
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const Offset local = rank[j] - prefix;  // kept items of this tile before item j
    if (kept[j]) {
      staged[local] = x[j];
    } else if (Partition && t * items + j < valid) {
      staged[kept_here + static_cast<Offset>(t * items + j) - local] = x[j];
    }
  }
  __syncthreads();
  const int count = Partition ? valid : static_cast<int>(kept_here);
  const std::int64_t rejected_before = base - static_cast<std::int64_t>(prefix);
  for (int k = t; k < count; k += threads) {
    if (!Partition || k < static_cast<int>(kept_here)) {
      out[static_cast<std::int64_t>(prefix) + k] = staged[k];
    } else {
      out[n - 1 - (rejected_before + (k - static_cast<std::int64_t>(kept_here)))] = staged[k];
    }
  }
  if (base + valid == n && t == 0) *num_selected = static_cast<NumSelected>(prefix + kept_here);
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
