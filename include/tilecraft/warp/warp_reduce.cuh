//! \file warp/warp_reduce.cuh
//! Shuffle-based reductions across a warp, or across logical warps of 1, 2, 4, 8, 16 or 32
//! lanes that split a warp evenly.
#pragma once

#include <type_traits>

#include <nv/target>

#include "../config.cuh"
#include "../util/functional.cuh"
#include "../util/concepts.cuh"
#include "../util/math.cuh"
#include "../util/thread.cuh"
#include "shuffle.cuh"

namespace tilecraft {

//! A logical warp size: a power of two from 1 to 32.
template <int N>
concept LogicalWarpSize = (N >= 1 && N <= warp_threads && (N & (N - 1)) == 0);

namespace detail {
// The rules, as static_asserts: nvcc reports an unsatisfied constraint only as "no instance of
// function template matches", without naming the rule, so user-facing rules are stated here.
template <int LogicalWarpThreads, class T, class Op>
struct WarpReduceRules {
  static_assert(
      LogicalWarpSize<LogicalWarpThreads>,
      "warp_reduce: LogicalWarpThreads must be a power of two from 1 to 32 (logical warps split a warp evenly)");
  static_assert(Shuffleable<T>,
                "warp_reduce: T must be trivially copyable and default constructible (it is shuffled "
                "between lanes as 32-bit words)");
  static_assert(ReductionOp<Op, T>, "warp_reduce: op(T, T) must be callable and return something convertible to T");
  static constexpr bool checked = true;
};

// sm_80+ reduces 32-bit integers across a warp in one redux.sync instruction.
template <class T>
inline constexpr bool has_redux_type = std::is_same_v<T, int> || std::is_same_v<T, unsigned>;
template <class T, class Op>
inline constexpr bool has_redux = has_redux_type<T> &&
                                  (std::is_same_v<Op, Sum> || std::is_same_v<Op, Min> || std::is_same_v<Op, Max>);

// What a lane outside valid_lanes contributes to redux: the operator's identity.
template <class T, class Op>
TILECRAFT_HOST_DEVICE constexpr T redux_identity() {
  if constexpr (std::is_same_v<Op, Sum>) {
    return T{0};
  } else {
    // Integers only (redux's types), in two's complement: spelled out, because
    // std::numeric_limits is host code and cuda::std's costs compile time in every unit.
    static_assert(std::is_integral_v<T>, "redux_identity: integer types only");
    using U = std::make_unsigned_t<T>;
    constexpr T largest = std::is_signed_v<T> ? static_cast<T>(static_cast<U>(~U{0}) >> 1) : static_cast<T>(~U{0});
    constexpr T lowest = std::is_signed_v<T> ? static_cast<T>(-largest - 1) : T{0};
    return std::is_same_v<Op, Min> ? largest : lowest;
  }
}
}  // namespace detail

#if defined(__CUDACC__)
namespace detail {
// Offsets grow (1, 2, 4, ...): after step k, lane i (i a multiple of 2^(k+1)) holds the
// in-order fold of lanes [i, i + 2^(k+1)), so lane 0 ends with lane 0 op lane 1 op ... in order.
template <int LogicalWarpThreads, class T, class Op>
TILECRAFT_DEVICE T shuffle_reduce(T value, Op op) {
#pragma unroll
  for (int offset = 1; offset < LogicalWarpThreads; offset *= 2) {
    value = static_cast<T>(op(value, shuffle_down(value, offset, LogicalWarpThreads)));
  }
  return value;
}

// As shuffle_reduce, combining only lanes below valid_lanes.
template <int LogicalWarpThreads, class T, class Op>
TILECRAFT_DEVICE T shuffle_reduce(T value, Op op, int valid_lanes, unsigned member_mask) {
  const int lane = thread_rank() & (LogicalWarpThreads - 1);
#pragma unroll
  for (int offset = 1; offset < LogicalWarpThreads; offset *= 2) {
    const T other = shuffle_down(value, offset, LogicalWarpThreads, member_mask);
    if (lane + offset < valid_lanes) value = static_cast<T>(op(value, other));
  }
  return value;
}

template <class T, class Op>
TILECRAFT_DEVICE T redux(unsigned mask, T v) {
  if constexpr (std::is_same_v<Op, Sum>) {
    return __reduce_add_sync(mask, v);
  } else if constexpr (std::is_same_v<Op, Min>) {
    return __reduce_min_sync(mask, v);
  } else {
    return __reduce_max_sync(mask, v);
  }
}
}  // namespace detail

//! Reduces `value` over each group of LogicalWarpThreads consecutive lanes with `op`
//! (associative; need not be commutative: lanes are combined in order).
//!
//! Result: valid in the first lane of each logical warp; other lanes hold partial values
//! (32-bit integer Sum/Min/Max over a whole warp on sm_80+ use redux.sync: every lane).
//! All 32 lanes of the warp must call it together (converged). No shared memory, no barrier:
//! log2(LogicalWarpThreads) shuffles of ceil(sizeof(T) / 4) words each.
//! \code
//! float s = tilecraft::warp_reduce(x, tilecraft::Sum{});          // lane 0 holds the sum
//! int   m = tilecraft::warp_reduce<8>(k, tilecraft::Max{});       // lanes 0, 8, 16, 24
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_reduce(T value, Op op) {
  static_assert(detail::WarpReduceRules<LogicalWarpThreads, T, Op>::checked);
  if constexpr (LogicalWarpThreads == warp_threads && detail::has_redux<T, Op>) {
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (return detail::redux<T, Op>(full_warp_mask, value);),
                      (return detail::shuffle_reduce<LogicalWarpThreads>(value, op);))
  } else {
    return detail::shuffle_reduce<LogicalWarpThreads>(value, op);
  }
}

//! As warp_reduce, but only the first `valid_lanes` lanes (1 ... LogicalWarpThreads) of each
//! logical warp contribute; the others' values are ignored. For partially filled warps. (With
//! valid_lanes <= 0 no lane contributes and the result is unspecified: block_reduce's partial
//! form calls it so in warps past its valid items, and discards what they return.)
//! Result: in the first lane of each logical warp (every lane on the redux.sync path, as
//! warp_reduce). `member_mask`: the lanes that call it, all of them together; the default,
//! the whole warp, is what the shuffles need unless every logical warp lies inside the mask.
//! \code
//! // A row of `cols` floats (cols <= 32) summed by one warp, lanes past the row calling too.
//! const int lane = static_cast<int>(threadIdx.x) % 32;
//! const float v = lane < cols ? in[lane] : 0.0f;  // (ignored past cols)
//! const float row_sum = tilecraft::warp_reduce(v, tilecraft::Sum{}, cols);  // lane 0
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_reduce(T value, Op op, int valid_lanes, unsigned member_mask = full_warp_mask) {
  static_assert(detail::WarpReduceRules<LogicalWarpThreads, T, Op>::checked);
  if constexpr (LogicalWarpThreads == warp_threads && detail::has_redux<T, Op>) {
    const T contribution = (thread_rank() & (warp_threads - 1)) < valid_lanes ? value : detail::redux_identity<T, Op>();
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (return detail::redux<T, Op>(member_mask, contribution);),
                      (return detail::shuffle_reduce<LogicalWarpThreads>(value, op, valid_lanes, member_mask);))
  } else {
    return detail::shuffle_reduce<LogicalWarpThreads>(value, op, valid_lanes, member_mask);
  }
}

//! Reduces `value` over each logical warp and returns the result in every lane of it
//! (bitwise the same in all lanes: the reduction runs once and is broadcast).
//! All 32 lanes must call it together; one more shuffle than warp_reduce, no shared memory, no
//! barrier.
//! \code
//! // Every lane of each warp learns its warp's maximum.
//! const float warp_max = tilecraft::warp_all_reduce(x, tilecraft::Max{});
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_all_reduce(T value, Op op) {
  return shuffle_index(warp_reduce<LogicalWarpThreads>(value, op), 0, LogicalWarpThreads);
}

//! As warp_all_reduce, with only the first `valid_lanes` lanes of each logical warp
//! contributing (every lane still calls it and receives the result).
//! \code
//! // The largest of the first `cols` values (cols <= 32), in every lane of the warp.
//! const float row_max = tilecraft::warp_all_reduce(x, tilecraft::Max{}, cols);
//! \endcode
template <int LogicalWarpThreads = warp_threads, class T, class Op>
TILECRAFT_DEVICE T warp_all_reduce(T value, Op op, int valid_lanes) {
  return shuffle_index(warp_reduce<LogicalWarpThreads>(value, op, valid_lanes), 0, LogicalWarpThreads);
}

#endif  // __CUDACC__

}  // namespace tilecraft
