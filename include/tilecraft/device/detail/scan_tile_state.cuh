//! \file device/detail/scan_tile_state.cuh
//! The tile states of the single-pass scans (scan, select, partition) and their decoupled
//! look-back (internal; include device/scan.cuh or device/select.cuh).
//!
//! Every tile publishes, in global memory, first its aggregate (the fold of its own items) and
//! then its inclusive prefix (the fold of every item up to its last). A tile finds the prefix of
//! everything before it by walking back over its predecessors' aggregates, 32 a window (one per
//! lane of its first warp), to the nearest inclusive prefix (look_back_far), or, for
//! accumulators wider than 8 bytes, by watching its 32 nearest predecessors until one of them
//! has published an inclusive prefix (look_back).
//!
//! Determinism. Tile i's inclusive prefix is defined as the strictly sequential fold
//! P_i = P_{i-1} op a_i (P_{-1}: the scan's initial value, or nothing). A tile whose look-back
//! meets the inclusive prefix P_j of its nearest such predecessor j folds forward, in order,
//! x = P_j, x = x op a_{j+1}, ..., x = x op a_{i-1}: exactly the association of P_{i-1}, whichever
//! j it met (an inclusive prefix it meets on the way forward is that same fold, bit for bit, and
//! replaces x). So every P_i, and every output, has the same bits on every run, however the
//! blocks are scheduled. The scans of operators that reassociate exactly (integer sums, min and
//! max: reassociable_v) need no such order: their look-back combines a window with a warp
//! reduction and walks back to the nearest inclusive prefix (look_back_walk), which is faster
//! there, and every association gives the same bits.
//!
//! Layout. Accumulators of up to 4 bytes share one 8-byte word with their flag (high half: 0
//! nothing yet, 1 aggregate, 2 inclusive prefix; low half: the value), read and written with
//! single 8-byte relaxed atomics: a look-back step is one coalesced 256-byte load per warp.
//! Accumulators of 5 to 8 bytes take two such words, each with the flag and one 4-byte half of
//! the value, moved as one 16-byte vector (each 8-byte element single-copy atomic, the pair
//! not): a reader that sees two different flags has caught the one writer between its two
//! halves and reads again; equal flags mean both halves are of one publication (every state is
//! written once per flag, by its own tile). Wider accumulators keep 4-byte flags and two value
//! arrays; the value is written first and the flag after a fence, and read back after a fence
//! that follows the flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../arch/griddepcontrol.cuh"
#include "../../config.cuh"
#include "../../util/functional.cuh"
#include "../../util/math.cuh"
#include "../../warp/shuffle.cuh"
#include "../../warp/warp_scan.cuh"

namespace tilecraft::detail {

inline constexpr unsigned tile_invalid = 0;
inline constexpr unsigned tile_aggregate = 1;
inline constexpr unsigned tile_inclusive = 2;

//! How a tile's state is stored: 0 value and flag in one 8-byte word, 1 in two (a 4-byte half
//! each), 2 flags and values apart (see the file comment).
template <class Acc>
inline constexpr int tile_status_kind = sizeof(Acc) <= 4 ? 0 : (sizeof(Acc) <= 8 ? 1 : 2);

//! The alignment of the value arrays of accumulators wider than 8 bytes: 16, or the
//! accumulator's own where it asks for more.
template <class Acc>
inline constexpr std::size_t tile_value_align = alignof(Acc) > 16 ? alignof(Acc) : 16;

//! Bytes of the tile states of `tiles` tiles (16-byte multiples) at a 16-byte aligned base.
//! Accumulators aligned to more than 16 bytes get the room to align their arrays wherever the
//! base falls (TileStatus<Acc, 2>).
template <class Acc>
constexpr std::size_t tile_status_bytes(std::int64_t tiles) {
  const auto t = static_cast<std::size_t>(tiles);
  if constexpr (tile_status_kind<Acc> == 0) {
    return round_up<std::size_t>(t * 8, 16);
  } else if constexpr (tile_status_kind<Acc> == 1) {
    return t * 16;
  } else {
    constexpr std::size_t slack = tile_value_align<Acc> - 16;  // (0 unless Acc asks for more than 16)
    return round_up<std::size_t>(t * 4, 16) + 2 * (slack + round_up<std::size_t>(t * sizeof(Acc), 16));
  }
}

template <class Acc>
struct TileEntry {
  unsigned flag;
  Acc value;
};

#if defined(__CUDACC__)
TILECRAFT_DEVICE unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
TILECRAFT_DEVICE void store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
TILECRAFT_DEVICE unsigned load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
TILECRAFT_DEVICE void store_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// A value another block reads: written to and read from L2 (.cg), never from a stale L1 line.
template <class T>
TILECRAFT_DEVICE void store_to_l2(T* p, const T& v) {
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned w[sizeof(T) / 4];
    std::memcpy(w, &v, sizeof(T));
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 4; ++i) __stcg(reinterpret_cast<unsigned*>(p) + i, w[i]);
  } else {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    volatile unsigned char* dst = reinterpret_cast<volatile unsigned char*>(p);
    for (unsigned i = 0; i < sizeof(T); ++i) dst[i] = b[i];
  }
}
template <class T>
TILECRAFT_DEVICE T load_from_l2_words(const T* p) {
  T out;
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned w[sizeof(T) / 4];
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 4; ++i) w[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
    std::memcpy(&out, w, sizeof(T));
  } else {
    unsigned char b[sizeof(T)];
    const volatile unsigned char* src = reinterpret_cast<const volatile unsigned char*>(p);
    for (unsigned i = 0; i < sizeof(T); ++i) b[i] = src[i];
    std::memcpy(&out, b, sizeof(T));
  }
  return out;
}
#endif

template <class Acc, int Kind = tile_status_kind<Acc>>
struct TileStatus;

// Flag and value in one 8-byte word.
template <class Acc>
struct TileStatus<Acc, 0> {
  unsigned long long* words;

  TileStatus(void* base, std::int64_t /*tiles*/) : words(static_cast<unsigned long long*>(base)) {}

#if defined(__CUDACC__)
  TILECRAFT_DEVICE void clear(std::int64_t i) const { words[i] = 0; }
  TILECRAFT_DEVICE void publish(std::int64_t i, unsigned flag, const Acc& v) const {
    unsigned bits = 0;
    std::memcpy(&bits, &v, sizeof(Acc));
    store_relaxed(words + i, (static_cast<unsigned long long>(flag) << 32) | bits);
  }
  TILECRAFT_DEVICE TileEntry<Acc> load(std::int64_t i) const {
    const unsigned long long w = load_relaxed(words + i);
    TileEntry<Acc> e;
    e.flag = static_cast<unsigned>(w >> 32);
    const auto bits = static_cast<unsigned>(w);
    std::memcpy(&e.value, &bits, sizeof(Acc));
    return e;
  }
#endif
};

// Flag and value in two 8-byte words, a 4-byte half of the value in each.
template <class Acc>
struct TileStatus<Acc, 1> {
  unsigned long long* words;  // two a tile, 16-byte aligned

  TileStatus(void* base, std::int64_t /*tiles*/) : words(static_cast<unsigned long long*>(base)) {}

#if defined(__CUDACC__)
  TILECRAFT_DEVICE void clear(std::int64_t i) const {
    words[2 * i] = 0;
    words[2 * i + 1] = 0;
  }
  TILECRAFT_DEVICE void publish(std::int64_t i, unsigned flag, const Acc& v) const {
    unsigned half[2] = {0, 0};
    std::memcpy(half, &v, sizeof(Acc));
    const unsigned long long high = static_cast<unsigned long long>(flag) << 32;
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(words + 2 * i), "l"(high | half[0]),
                 "l"(high | half[1])
                 : "memory");
  }
  TILECRAFT_DEVICE TileEntry<Acc> load(std::int64_t i) const {
    unsigned long long w0, w1;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(w0), "=l"(w1) : "l"(words + 2 * i) : "memory");
    TileEntry<Acc> e;
    const auto f0 = static_cast<unsigned>(w0 >> 32), f1 = static_cast<unsigned>(w1 >> 32);
    e.flag = f0 == f1 ? f0 : tile_invalid;  // caught between the two halves: not yet
    const unsigned half[2] = {static_cast<unsigned>(w0), static_cast<unsigned>(w1)};
    std::memcpy(&e.value, half, sizeof(Acc));
    return e;
  }
#endif
};

// 4-byte flags and separate aggregate and inclusive-prefix arrays, each aligned for Acc
// (tile_value_align: the arrays start at the next multiple of it, within tile_status_bytes).
template <class Acc>
struct TileStatus<Acc, 2> {
  unsigned* flags;
  Acc* aggregates;
  Acc* inclusives;

  TileStatus(void* base, std::int64_t tiles)
      : flags(static_cast<unsigned*>(base)),
        aggregates(aligned_at(static_cast<unsigned char*>(base) +
                              round_up<std::size_t>(static_cast<std::size_t>(tiles) * 4, 16))),
        inclusives(aligned_at(reinterpret_cast<unsigned char*>(aggregates) +
                              round_up<std::size_t>(static_cast<std::size_t>(tiles) * sizeof(Acc), 16))) {}

  static Acc* aligned_at(unsigned char* p) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    return reinterpret_cast<Acc*>(round_up<std::uintptr_t>(at, tile_value_align<Acc>));
  }

#if defined(__CUDACC__)
  TILECRAFT_DEVICE void clear(std::int64_t i) const { flags[i] = tile_invalid; }
  TILECRAFT_DEVICE void publish(std::int64_t i, unsigned flag, const Acc& v) const {
    store_to_l2((flag == tile_inclusive ? inclusives : aggregates) + i, v);
    __threadfence();
    store_relaxed(flags + i, flag);
  }
  TILECRAFT_DEVICE TileEntry<Acc> load(std::int64_t i) const {
    TileEntry<Acc> e;
    e.flag = load_relaxed(flags + i);
    if (e.flag != tile_invalid) {
      __threadfence();
      e.value = load_from_l2_words((e.flag == tile_inclusive ? inclusives : aggregates) + i);
    }
    return e;
  }
#endif
};

#if defined(__CUDACC__)

// Clears the tile states and the tile counter before a scan (one thread per tile). On sm_90 it
// lets the scan kernel, launched as its programmatic dependent (scan_dispatch.cuh), start at
// once: that kernel waits for this grid's completion (griddepcontrol.wait) before it touches
// the counter or a state, but its launch no longer waits.
template <class Status>
__global__ void __launch_bounds__(256) scan_init_kernel(Status status, std::int64_t tiles, unsigned* counter) {
  arch::launch_dependents();
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * 256 + threadIdx.x;
  if (i == 0) *counter = 0;
  if (i < tiles) status.clear(i);
}

// Folds the aggregates of one window of 32 tile states (lane l holds the tile l + 1 before the
// folding one) onto x in tile order, lanes `start` down to 0. Every lane runs the same chain
// (broadcast reads of `buf`, shared memory for 32 values), so x ends the same in all of them.
// Only the tile itself publishes its inclusive prefix: publishing the prefixes of the tiles folded through as well
// (each is the same bits the tile computes) helped the look-backs of the tiles behind when they walked back, but those
// stores, to the states every look-back is polling, cost more than they saved
// (benchmarks/TUNING.md, "Scan").
template <class Acc, class Op>
TILECRAFT_DEVICE Acc fold_window(const TileEntry<Acc>& e, int start, Acc x, Op op, Acc* buf) {
  const int lane = hardware_lane();
  buf[lane] = e.value;
  __syncwarp();
#pragma unroll
  for (int l = warp_threads - 1; l >= 0; --l) {
    if (l <= start) {
      x = static_cast<Acc>(op(x, buf[l]));
    }
  }
  __syncwarp();  // buf is rewritten by the next window
  return x;
}

// The exclusive prefix of tile `tile` (> 0), that is P_{tile-1}: called by all 32 lanes of one
// warp, returns the same value in every lane. `buf`: 32 values of shared memory for the warp.
// See the file comment for why the fold is sequential.
//
// The warp watches one window, its 32 nearest predecessors (lane l: tile - 1 - l), until one of
// them has published its inclusive prefix and every tile nearer than that one its aggregate;
// it never walks further back. Progress: the lowest tile without an inclusive prefix sees its
// predecessor's in its window. Used for accumulators wider than 8 bytes (whose windows would
// not fit look_back_far's buffer) and by the tests, which compare it with look_back_far's bits.
// Waiting in place waits for the inclusive frontier to reach the window, 32 tiles a hop: on the
// H200 (benchmarks/TUNING.md, "Scan") the walk is faster at every size, since the L2 prefetch
// (floats, 2^22: 22.4 -> 19.5 us; 2^28: 626 -> 569 us). Watching 64 or 128 predecessors,
// polling with two loads in flight, or polling only the farthest predecessor were all slower.
template <class Acc, class Status, class Op>
TILECRAFT_DEVICE Acc look_back(const Status& status, std::int64_t tile, Op op, Acc* buf) {
  const std::int64_t pred = tile - 1 - hardware_lane();
  TileEntry<Acc> e{tile_aggregate, Acc{}};
  int nearest;
  for (;;) {
    if (pred >= 0) e = status.load(pred);
    const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, pred >= 0 && e.flag == tile_inclusive);
    const unsigned missing = __ballot_sync(full_warp_mask, e.flag == tile_invalid);
    nearest = __ffs(static_cast<int>(inclusive_lanes)) - 1;
    if (nearest >= 0 && (missing & ((1u << nearest) - 1u)) == 0) break;
    __nanosleep(20);
  }
  Acc x = shuffle_index(e.value, nearest);
  if (nearest > 0) x = fold_window(e, nearest - 1, x, op, buf);
  return x;
}

//! Windows of 32 tile states look_back_far walks back over before it waits in place: as many
//! as keep its buffer (32 values a window, in shared memory) at 2 KiB; one (look_back itself)
//! for accumulators wider than 8 bytes.
template <class Acc>
inline constexpr int far_windows = sizeof(Acc) <= 4 ? 16 : (sizeof(Acc) <= 8 ? 8 : 1);

// The exclusive prefix of tile `tile` (> 0). A tile's predecessors publish their aggregates
// long before their inclusive prefixes (a grid of about one wave loads every tile at once; in a
// longer one a tile's predecessors are a wave of tiles loading beside it), which look_back would
// wait for as they pass 32 tiles a hop. Walks back instead, window by window, waiting in
// each only until every state holds at least its aggregate, to the nearest inclusive prefix, and
// folds forward from it in tile order: the same fold, and the same bits, as look_back's (the file
// comment). Past `Windows` windows (their values kept in `buf`, Windows * 32 values of shared
// memory) it waits in place at the last, as look_back does. Called by all 32 lanes of one warp;
// returns the same value in every lane.
template <int Windows, class Acc, class Status, class Op>
TILECRAFT_DEVICE Acc look_back_far(const Status& status, std::int64_t tile, Op op, Acc* buf) {
  const int lane = hardware_lane();
  TileEntry<Acc> e{tile_aggregate, Acc{}};
  int window = 0;
  int nearest;
  for (;;) {
    const std::int64_t pred = tile - 1 - static_cast<std::int64_t>(window) * warp_threads - lane;
    if (pred >= 0) e = status.load(pred);
    const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, pred >= 0 && e.flag == tile_inclusive);
    const unsigned missing = __ballot_sync(full_warp_mask, pred >= 0 && e.flag == tile_invalid);
    nearest = __ffs(static_cast<int>(inclusive_lanes)) - 1;
    if (nearest >= 0 && (missing & ((1u << nearest) - 1u)) == 0) break;
    if (missing == 0 && window + 1 < Windows) {
      buf[window * warp_threads + lane] = e.value;  // every aggregate of this window: go on back
      ++window;
    } else {
      __nanosleep(20);
    }
  }
  buf[window * warp_threads + lane] = e.value;
  __syncwarp();
  Acc x = shuffle_index(e.value, nearest);
  for (int w = window; w >= 0; --w) {
    const int start = w == window ? nearest - 1 : warp_threads - 1;
#pragma unroll
    for (int l = warp_threads - 1; l >= 0; --l) {
      if (l <= start) x = static_cast<Acc>(op(x, buf[w * warp_threads + l]));
    }
  }
  __syncwarp();  // (buf is the caller's again)
  return x;
}

//! Operators whose result has the same bits in any association and order on Acc: integer sums
//! (wrapping), min and max of integers. Their scans look back with look_back_walk.
template <class Op, class Acc>
inline constexpr bool reassociable_v = std::is_integral_v<Acc> &&
                                       (std::is_same_v<Op, Sum> || std::is_same_v<Op, Min> || std::is_same_v<Op, Max>);

// The look-back of a reassociable operator, CUB's walk: lane l waits until tile top - l holds at
// least its aggregate, the window's values up to its nearest inclusive prefix are combined by a
// butterfly over the lanes that hold one, and the walk moves back 32 tiles until it has met an
// inclusive prefix. One L2 round trip a window and no sequential fold; where the walk stops does
// not change the bits, since the operator reassociates exactly. Measured on the H200 against
// waiting in place (benchmarks/TUNING.md, "Scan"): i64 exclusive sums at 2^27 14% faster, i32
// even; select_if's offsets (int64 sums) 7% slower, so select looks back in tile order too
// (look_back_far since the forty-eighth session).
template <class Acc, class Status, class Op>
TILECRAFT_DEVICE Acc look_back_walk(const Status& status, std::int64_t tile, Op op) {
  static_assert(reassociable_v<Op, Acc>, "look_back_walk: the operator must reassociate exactly on Acc");
  const int lane = hardware_lane();
  Acc x{};
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
    }
    // Tile 0 always ends with an inclusive prefix, so a window reaching it has one.
    const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, pred >= 0 && e.flag == tile_inclusive);
    const int limit = inclusive_lanes != 0 ? __ffs(static_cast<int>(inclusive_lanes)) - 1 : warp_threads - 1;
    Acc v = e.value;
    bool valid = pred >= 0 && lane <= limit;
#pragma unroll
    for (int d = warp_threads / 2; d >= 1; d /= 2) {
      const Acc other = shuffle_index(v, lane ^ d);
      const bool other_valid = __shfl_xor_sync(full_warp_mask, valid ? 1 : 0, d) != 0;
      if (valid && other_valid) {
        v = static_cast<Acc>(op(v, other));
      } else if (other_valid) {
        v = other;
      }
      valid = valid || other_valid;
    }
    x = have ? static_cast<Acc>(op(v, x)) : v;
    have = true;
    if (inclusive_lanes != 0) return x;
  }
}

// block_scan's prefix callback for tiles after the first: publishes the tile's aggregate, looks
// back, publishes the inclusive prefix and returns the exclusive one (`buf`: shared memory for the
// look-back's fold, 32 values, or far_windows<Acc> * 32 with `far`). Optionally records both in shared memory for the
// rest of the block (select needs them). Walk: look back with look_back_walk (reassociable operators).
template <class Acc, class Status, class Op, bool Walk = false>
struct LookBackCallback {
  const Status& status;
  std::int64_t tile;
  Op op;
  Acc* buf;               // 32 values of shared memory (far: far_windows<Acc> * 32)
  Acc* shared_prefix;     // nullable
  Acc* shared_aggregate;  // nullable
  bool far = false;       // look back with look_back_far (buf: far_windows<Acc> * 32 values)

  TILECRAFT_DEVICE Acc operator()(const Acc& aggregate) {
    const int lane = hardware_lane();
    if (lane == 0) status.publish(tile, tile_aggregate, aggregate);
    Acc prefix;
    if constexpr (Walk) {
      prefix = look_back_walk<Acc>(status, tile, op);
    } else if constexpr (far_windows<Acc> > 1) {
      prefix =
          far ? look_back_far<far_windows<Acc>, Acc>(status, tile, op, buf) : look_back<Acc>(status, tile, op, buf);
    } else {
      prefix = look_back<Acc>(status, tile, op, buf);
    }
    if (lane == 0) {
      status.publish(tile, tile_inclusive, static_cast<Acc>(op(prefix, aggregate)));
      if (shared_prefix != nullptr) *shared_prefix = prefix;
      if (shared_aggregate != nullptr) *shared_aggregate = aggregate;
    }
    return prefix;
  }
};

// The first tile's callback when the scan has an initial value: P_0 = init op a_0.
template <class Acc, class Status, class Op>
struct FirstTileCallback {
  const Status& status;
  Op op;
  Acc init;
  Acc* shared_prefix;
  Acc* shared_aggregate;

  TILECRAFT_DEVICE Acc operator()(const Acc& aggregate) {
    if (hardware_lane() == 0) {
      status.publish(0, tile_inclusive, static_cast<Acc>(op(init, aggregate)));
      if (shared_prefix != nullptr) *shared_prefix = init;
      if (shared_aggregate != nullptr) *shared_aggregate = aggregate;
    }
    return init;
  }
};

#endif  // __CUDACC__

}  // namespace tilecraft::detail
