#!/usr/bin/env python3
"""Adds phase timers to a copy of the library's scan kernel (argv[1]: the copy's include folder).

Thread 0 of each block of scan_kernel stamps clock64() at seven points of its tile (the two-pass
tile: 4-byte scans from 4 MiB on), and adds the six differences, and a count, to
tilecraft::detail::phase_cycles at its end. Every edit must find its text: the script stops
otherwise, so a changed kernel cannot go unmeasured silently."""
import sys

path = sys.argv[1] + "/tilecraft/device/detail/scan_kernels.cuh"
s = open(path).read()


def edit(old, new):
    global s
    if s.count(old) != 1:
        sys.exit(f"instrument.py: {old[:60]!r} found {s.count(old)} times in {path}")
    s = s.replace(old, new)


edit("namespace tilecraft::detail {\n", """namespace tilecraft::detail {

#if defined(__CUDACC__)
// Experiment only (scan_phases): per-phase sums of thread 0's clock64() stamps over every tile.
__device__ unsigned long long phase_cycles[8];
TILECRAFT_DEVICE long long* phase_marks() {
  __shared__ long long marks[8];
  return marks;
}
TILECRAFT_DEVICE void phase_mark(int i) {
  if (threadIdx.x == 0) phase_marks()[i] = clock64();
}
// The timeline: tile_ns[tile][k] (%globaltimer, ns), k = 0 ticket known, 1 tile loaded, 2 prefix
// known, 3 stores issued.
inline constexpr int timeline_tiles = 1 << 16;
__device__ unsigned long long tile_ns[timeline_tiles][4];
TILECRAFT_DEVICE void tile_mark(long long tile, int k) {
  if (threadIdx.x == 0 && tile < timeline_tiles) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    tile_ns[tile][k] = t;
  }
}
#endif
""", )
# 0: the block starts; 1: its ticket is known (after the barrier).
edit("""  if (threadIdx.x == 0) ticket = by_block ? blockIdx.x : atomicAdd(counter, 1u);
  __syncthreads();
""", """  phase_mark(0);
  if (threadIdx.x == 0) ticket = by_block ? blockIdx.x : atomicAdd(counter, 1u);
  __syncthreads();
  phase_mark(1);
  tile_mark(ticket, 0);
""")
# 2: the tile is in shared memory; 3: thread 0's run is folded; 4: its prefix is known (the block
# scan with the look-back); 5: pass 2 and the barrier after it; 6: the stores are issued.
edit("""  if constexpr (!Staged) InStage::template stage_in<Policy::hint>(vector, in, valid, stage);
""", """  if constexpr (!Staged) InStage::template stage_in<Policy::hint>(vector, in, valid, stage);
  phase_mark(2);
  tile_mark(tile, 1);
""")
edit("""  const Acc total = fold_tree<0, chunks>(part, op);
""", """  const Acc total = fold_tree<0, chunks>(part, op);
  phase_mark(3);
""")
edit("""    prefix = prefix_of.exclusive(temp, tile, total);
  }

  Acc run = prefix;""", """    prefix = prefix_of.exclusive(temp, tile, total);
  }
  phase_mark(4);
  tile_mark(tile, 2);

  Acc run = prefix;""")
edit("""  __syncthreads();
  OutStage::template stage_out<Policy::hint>(vector, out, valid, stage);
}""", """  __syncthreads();
  phase_mark(5);
  OutStage::template stage_out<Policy::hint>(vector, out, valid, stage);
  phase_mark(6);
  tile_mark(tile, 3);
  if (threadIdx.x == 0) {
    for (int i = 0; i < 6; ++i) atomicAdd(&phase_cycles[i], static_cast<unsigned long long>(phase_marks()[i + 1] - phase_marks()[i]));
    atomicAdd(&phase_cycles[7], 1ull);
  }
}""")
open(path, "w").write(s)

# The look-back in detail (scan_tile_state.cuh): lb_stats[0] the callback's cycles (entry to the
# prefix known), [1] the count of callbacks, [2] windows walked (look_back_far: the window it
# stopped in; look_back_walk: windows read), [3] its polls that found a state missing or no
# inclusive prefix (sleeps), [4] cycles from the entry to the first window without a missing
# state; lb_hist[w]: callbacks that stopped in window w (thread 0 of each tile only).
path = sys.argv[1] + "/tilecraft/device/detail/scan_tile_state.cuh"
s = open(path).read()
edit("""#if defined(__CUDACC__)

// Clears the tile states""", """#if defined(__CUDACC__)
__device__ unsigned long long lb_stats[8];
__device__ unsigned long long lb_hist[64];
TILECRAFT_DEVICE long long& lb_first_ready() {
  __shared__ long long v;
  return v;
}
TILECRAFT_DEVICE long long& lb_entry() {
  __shared__ long long v;
  return v;
}

// Clears the tile states""")
edit("""  int window = 0;
  int nearest;
  for (;;) {
    const std::int64_t pred = tile - 1 - static_cast<std::int64_t>(window) * warp_threads - lane;""", """  int window = 0;
  int nearest;
  unsigned long long sleeps = 0;
  bool first_ready = false;
  for (;;) {
    const std::int64_t pred = tile - 1 - static_cast<std::int64_t>(window) * warp_threads - lane;""")
edit("""    nearest = __ffs(static_cast<int>(inclusive_lanes)) - 1;
    if (nearest >= 0 && (missing & ((1u << nearest) - 1u)) == 0) break;
    if (missing == 0 && window + 1 < Windows) {""", """    nearest = __ffs(static_cast<int>(inclusive_lanes)) - 1;
    if (!first_ready && window == 0 && (missing == 0 || (nearest >= 0 && (missing & ((1u << nearest) - 1u)) == 0))) {
      first_ready = true;
      if (threadIdx.x == 0) lb_first_ready() = clock64();
    }
    if (nearest >= 0 && (missing & ((1u << nearest) - 1u)) == 0) break;
    ++sleeps;
    if (missing == 0 && window + 1 < Windows) {""")
edit("""  buf[window * warp_threads + lane] = e.value;
  __syncwarp();
  Acc x = shuffle_index(e.value, nearest);""", """  buf[window * warp_threads + lane] = e.value;
  __syncwarp();
  if (threadIdx.x == 0) {
    atomicAdd(&lb_stats[2], static_cast<unsigned long long>(window));
    atomicAdd(&lb_stats[3], sleeps);
    atomicAdd(&lb_hist[window], 1ull);
    atomicAdd(&lb_stats[4], static_cast<unsigned long long>(lb_first_ready() - lb_entry()));
  }
  Acc x = shuffle_index(e.value, nearest);""")
edit("""  Acc x{};
  bool have = false;
  for (std::int64_t top = tile - 1;; top -= warp_threads) {
    const std::int64_t pred = top - lane;
    TileEntry<Acc> e{tile_aggregate, Acc{}};
    if (pred >= 0) {
      e = status.load(pred);
      while (e.flag == tile_invalid) {
        __nanosleep(20);
        e = status.load(pred);
      }
    }""", """  Acc x{};
  bool have = false;
  unsigned long long windows = 0, sleeps = 0;
  for (std::int64_t top = tile - 1;; top -= warp_threads) {
    const std::int64_t pred = top - lane;
    TileEntry<Acc> e{tile_aggregate, Acc{}};
    if (pred >= 0) {
      e = status.load(pred);
      while (e.flag == tile_invalid) {
        __nanosleep(20);
        ++sleeps;
        e = status.load(pred);
      }
    }
    __syncwarp();
    if (windows == 0 && threadIdx.x == 0) lb_first_ready() = clock64();""")
edit("""    x = have ? static_cast<Acc>(op(v, x)) : v;
    have = true;
    if (inclusive_lanes != 0) return x;""", """    x = have ? static_cast<Acc>(op(v, x)) : v;
    have = true;
    if (inclusive_lanes != 0) {
      if (threadIdx.x == 0) {
        atomicAdd(&lb_stats[2], windows);
        atomicAdd(&lb_stats[3], sleeps);
        atomicAdd(&lb_hist[windows < 63 ? windows : 63], 1ull);
        atomicAdd(&lb_stats[4], static_cast<unsigned long long>(lb_first_ready() - lb_entry()));
      }
      return x;
    }
    ++windows;""")
edit("""  TILECRAFT_DEVICE Acc operator()(const Acc& aggregate) {
    const int lane = hardware_lane();
    if (lane == 0) status.publish(tile, tile_aggregate, aggregate);""", """  TILECRAFT_DEVICE Acc operator()(const Acc& aggregate) {
    const int lane = hardware_lane();
    if (threadIdx.x == 0) lb_entry() = clock64();
    if (lane == 0) status.publish(tile, tile_aggregate, aggregate);""")
edit("""    if (lane == 0) {
      status.publish(tile, tile_inclusive, static_cast<Acc>(op(prefix, aggregate)));
      if (shared_prefix != nullptr) *shared_prefix = prefix;""", """    if (threadIdx.x == 0) {
      atomicAdd(&lb_stats[0], static_cast<unsigned long long>(clock64() - lb_entry()));
      atomicAdd(&lb_stats[1], 1ull);
    }
    if (lane == 0) {
      status.publish(tile, tile_inclusive, static_cast<Acc>(op(prefix, aggregate)));
      if (shared_prefix != nullptr) *shared_prefix = prefix;""")
open(path, "w").write(s)
