//! \file warp/warp_scan.cuh
//! Shuffle-based prefix scans across a warp, or across logical warps of 1, 2, 4, 8, 16 or 32
//! lanes that split a warp evenly (the logical warp sizes of warp_reduce).
#pragma once

#include <type_traits>

#include "../config.cuh"
#include "../util/concepts.cuh"
#include "../util/functional.cuh"
#include "shuffle.cuh"
#include "warp_reduce.cuh"

namespace tilecraft {

namespace detail {
// The rules, as static_asserts whose messages name them (an unsatisfied constraint would only
// say "no instance of function template matches").
template <int LogicalWarpThreads, class T, class Op>
struct WarpScanRules {
  static_assert(
      LogicalWarpSize<LogicalWarpThreads>,
      "warp_scan: LogicalWarpThreads must be a power of two from 1 to 32 (logical warps split a warp evenly)");
  static_assert(Shuffleable<T>,
                "warp_scan: T must be trivially copyable and default constructible (it is shuffled between lanes as "
                "32-bit words)");
  static_assert(ReductionOp<Op, T>, "warp_scan: op(T, T) must be callable and return something convertible to T");
  static constexpr bool checked = true;
};
// Whether the rules hold: the scans stop at a broken one, so that its message comes alone.
template <int LogicalWarpThreads, class T, class Op>
inline constexpr bool warp_scan_rules_hold = LogicalWarpSize<LogicalWarpThreads>&& Shuffleable<T>&& ReductionOp<Op, T>;
}  // namespace detail

#if defined(__CUDACC__)
namespace detail {

// The lane of the calling thread in its hardware warp, from the %laneid register: warps are
// formed from the linear thread rank, so this is thread_rank() % 32 for any block shape, without
// the multiplications thread_rank() costs in 2D and 3D blocks.
TILECRAFT_DEVICE int hardware_lane() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return static_cast<int>(lane);
}

// Kogge-Stone: after the step with offset d, lane i holds the in-order fold of lanes
// [max(0, i - 2d + 1), i]. The earlier lanes' value is always the left operand, so the operator
// need not be commutative. log2(LogicalWarpThreads) shuffles of ceil(sizeof(T) / 4) words each.
// A sum of 32-bit ints, unsigneds or floats takes one shuffle and one predicated add a step:
// shfl.sync.up reports whether the source lane exists in the logical warp, so the lane >= offset
// compare and select of the generic step disappear (2 instructions a step instead of 3 to 4; the
// same additions in the same order, so the same bits). Out of range, the shuffle returns the
// lane's own value and the add is skipped. (One exception: in a unit built with -ftz=true or
// --use_fast_math these float adds do not flush subnormals, as the unit's other float adds do;
// nvcc defines no macro that would let the asm follow the mode. Only sums with subnormal
// operands or results can differ from an operator's scan there.)
template <class T, class Op>
inline constexpr bool shuffle_add_scan = std::is_same_v<Op, Sum> &&
                                         (std::is_same_v<T, int> || std::is_same_v<T, unsigned> ||
                                          std::is_same_v<T, float>);

template <int LogicalWarpThreads>
TILECRAFT_DEVICE float shuffle_up_add(float value, unsigned offset, unsigned mask) {
  float out;
  asm volatile(
      "{\n .reg .f32 up;\n .reg .pred in_range;\n"
      " shfl.sync.up.b32 up|in_range, %1, %2, %3, %4;\n"
      " @in_range add.f32 up, up, %1;\n"
      " mov.f32 %0, up;\n}"
      : "=f"(out)
      : "f"(value), "r"(offset), "r"((warp_threads - LogicalWarpThreads) << 8), "r"(mask));
  return out;
}
template <int LogicalWarpThreads, class T>
TILECRAFT_DEVICE T shuffle_up_add(T value, unsigned offset, unsigned mask) {
  T out;
  asm volatile(
      "{\n .reg .b32 up;\n .reg .pred in_range;\n"
      " shfl.sync.up.b32 up|in_range, %1, %2, %3, %4;\n"
      " @in_range add.s32 up, up, %1;\n"
      " mov.b32 %0, up;\n}"
      : "=r"(out)
      : "r"(value), "r"(offset), "r"((warp_threads - LogicalWarpThreads) << 8), "r"(mask));
  return out;
}

// Lanes at or past `valid_lanes` keep their own value: op never sees it (a partial block scan's
// threads past its valid items), and their results are not the scan's. (A sum over float, int
// or unsigned, whose shuffles add in place, adds in every lane: no user operator is called.)
template <int LogicalWarpThreads, class T, class Op>
TILECRAFT_DEVICE T shuffle_inclusive_scan(T value, Op op, int lane, unsigned mask = full_warp_mask,
                                          int valid_lanes = LogicalWarpThreads) {
  if constexpr (shuffle_add_scan<T, Op>) {
#pragma unroll
    for (unsigned offset = 1; offset < LogicalWarpThreads; offset *= 2)
      value = shuffle_up_add<LogicalWarpThreads>(value, offset, mask);
    (void)lane;
    (void)op;
    (void)valid_lanes;
  } else if constexpr (ReductionOp<Op, T>) {  // otherwise the caller's rule has failed already
#pragma unroll
    for (int offset = 1; offset < LogicalWarpThreads; offset *= 2) {
      const T up = shuffle_up(value, static_cast<unsigned>(offset), LogicalWarpThreads, mask);
      if (lane >= offset && lane < valid_lanes) value = static_cast<T>(op(up, value));
    }
  }
  return value;
}

}  // namespace detail

//! Inclusive prefix scan over each group of LogicalWarpThreads consecutive lanes: lane i of a
//! logical warp receives x_0 op x_1 op ... op x_i (in lane order; `op` must be associative, it
//! need not be commutative).
//!
//! Result: valid in every lane. All 32 lanes of the warp must call it together (converged). No
//! shared memory, no barrier: log2(LogicalWarpThreads) shuffles of ceil(sizeof(T) / 4) words each.
//! \code
//! float running = tilecraft::warp_inclusive_scan(x, tilecraft::Sum{});   // lane i: x_0 + ... + x_i
//! int   best    = tilecraft::warp_inclusive_scan<8>(k, tilecraft::Max{});  // per 8-lane group
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_inclusive_scan(T value, Op op) {
  static_assert(detail::WarpScanRules<LogicalWarpThreads, T, Op>::checked);
  if constexpr (detail::warp_scan_rules_hold<LogicalWarpThreads, T, Op>) {
    return detail::shuffle_inclusive_scan<LogicalWarpThreads>(value, op,
                                                              detail::hardware_lane() & (LogicalWarpThreads - 1));
  } else {
    return value;
  }
}

//! As warp_inclusive_scan, and `warp_aggregate` receives the fold of the whole logical warp
//! (x_0 op ... op x_{LogicalWarpThreads-1}) in every lane: one more shuffle.
//! \code
//! int total;
//! int mine = tilecraft::warp_inclusive_scan(k, tilecraft::Sum{}, total);
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_inclusive_scan(T value, Op op, T& warp_aggregate) {
  static_assert(detail::WarpScanRules<LogicalWarpThreads, T, Op>::checked);
  if constexpr (detail::warp_scan_rules_hold<LogicalWarpThreads, T, Op>) {
    const T inclusive = detail::shuffle_inclusive_scan<LogicalWarpThreads>(
        value, op, detail::hardware_lane() & (LogicalWarpThreads - 1));
    warp_aggregate = shuffle_index(inclusive, LogicalWarpThreads - 1, LogicalWarpThreads);
    return inclusive;
  } else {
    return value;
  }
}

//! Exclusive prefix scan seeded with `init`: lane 0 of each logical warp receives `init`, lane
//! i receives init op x_0 op ... op x_{i-1}. All 32 lanes must call it together; one shuffle
//! more than the inclusive scan, no shared memory, no barrier.
//! \code
//! int slot = tilecraft::warp_exclusive_scan(i, tilecraft::Sum{}, 0);   // lane 0: 0
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_exclusive_scan(T value, Op op, std::type_identity_t<T> init) {
  static_assert(detail::WarpScanRules<LogicalWarpThreads, T, Op>::checked);
  if constexpr (detail::warp_scan_rules_hold<LogicalWarpThreads, T, Op>) {
    const int lane = detail::hardware_lane() & (LogicalWarpThreads - 1);
    const T inclusive = detail::shuffle_inclusive_scan<LogicalWarpThreads>(value, op, lane);
    const T previous = shuffle_up(inclusive, 1, LogicalWarpThreads);
    return lane == 0 ? init : static_cast<T>(op(init, previous));
  } else {
    return value;
  }
}

//! As warp_exclusive_scan with `init`, and `warp_aggregate` receives the fold of the whole
//! logical warp's inputs (without `init`) in every lane.
//! \code
//! // Each lane's output slot for its `i` items after `r0` slots already taken, and the
//! // warp's total (to advance r0 for the next round), in every lane.
//! int total = 0;
//! const int slot = tilecraft::warp_exclusive_scan(i, tilecraft::Sum{}, static_cast<int>(r0), total);
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_exclusive_scan(T value, Op op, std::type_identity_t<T> init, T& warp_aggregate) {
  static_assert(detail::WarpScanRules<LogicalWarpThreads, T, Op>::checked);
  if constexpr (detail::warp_scan_rules_hold<LogicalWarpThreads, T, Op>) {
    const int lane = detail::hardware_lane() & (LogicalWarpThreads - 1);
    const T inclusive = detail::shuffle_inclusive_scan<LogicalWarpThreads>(value, op, lane);
    const T previous = shuffle_up(inclusive, 1, LogicalWarpThreads);
    warp_aggregate = shuffle_index(inclusive, LogicalWarpThreads - 1, LogicalWarpThreads);
    return lane == 0 ? init : static_cast<T>(op(init, previous));
  } else {
    return value;
  }
}

//! Exclusive prefix scan without a seed (CUB's form for operators without an identity): lane i
//! > 0 of each logical warp receives x_0 op ... op x_{i-1}; the first lane of each logical warp
//! receives its own input back (there is nothing before it; use the seeded form where lane 0
//! needs a defined value of your choice). All 32 lanes must call it together.
//! \code
//! float before = tilecraft::warp_exclusive_scan(x, tilecraft::Max{});   // lane 0: x itself
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_exclusive_scan(T value, Op op) {
  static_assert(detail::WarpScanRules<LogicalWarpThreads, T, Op>::checked);
  if constexpr (detail::warp_scan_rules_hold<LogicalWarpThreads, T, Op>) {
    const int lane = detail::hardware_lane() & (LogicalWarpThreads - 1);
    const T inclusive = detail::shuffle_inclusive_scan<LogicalWarpThreads>(value, op, lane);
    const T previous = shuffle_up(inclusive, 1, LogicalWarpThreads);
    return lane == 0 ? value : previous;
  } else {
    return value;
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft
