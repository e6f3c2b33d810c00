//! \file warp/shuffle.cuh
//! Warp shuffles for any trivially copyable type: values wider or narrower than 32 bits are
//! moved as 32-bit words (one shfl per word), so user structs can be reduced across lanes.
#pragma once

#include <cstring>

#include "../config.cuh"
#include "../util/concepts.cuh"

namespace tilecraft {

//! Mask naming all 32 lanes of a warp.
inline constexpr unsigned full_warp_mask = 0xffffffffu;

#if defined(__CUDACC__)
namespace detail {

template <Shuffleable T, class Shfl>
TILECRAFT_DEVICE T shuffle_words(const T& value, Shfl shfl) {
  constexpr int words = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned w[words] = {};
  std::memcpy(w, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) w[i] = shfl(w[i]);
  T out;
  std::memcpy(&out, w, sizeof(T));
  return out;
}

}  // namespace detail

//! `value` from the lane `delta` higher in the same `width`-lane segment (own value when that
//! lane is outside the segment). Every lane in `mask` must call it; no shared
//! memory, no barrier (the warp's lanes in `mask` exchange registers).
//! \code
//! // A warp's sum by hand (tilecraft::warp_reduce does this): lane 0 holds the total.
//! float sum = x;
//! for (unsigned d = 16; d > 0; d /= 2) sum += tilecraft::shuffle_down(sum, d);
//! \endcode
template <Shuffleable T>
TILECRAFT_DEVICE T shuffle_down(const T& value, unsigned delta, int width = warp_threads,
                                unsigned mask = full_warp_mask) {
  return detail::shuffle_words(value, [&](unsigned w) { return __shfl_down_sync(mask, w, delta, width); });
}

//! `value` from the lane `delta` lower in the same `width`-lane segment (own value when that
//! lane is outside the segment). Every lane in `mask` must call it; no shared
//! memory, no barrier (the warp's lanes in `mask` exchange registers).
//! \code
//! // A warp's inclusive prefix sum by hand (tilecraft::warp_inclusive_scan does this).
//! const int lane = static_cast<int>(threadIdx.x % 32);
//! float prefix = x;
//! for (unsigned d = 1; d < 32; d *= 2) {
//!   const float below = tilecraft::shuffle_up(prefix, d);
//!   if (lane >= static_cast<int>(d)) prefix += below;
//! }
//! \endcode
template <Shuffleable T>
TILECRAFT_DEVICE T shuffle_up(const T& value, unsigned delta, int width = warp_threads,
                              unsigned mask = full_warp_mask) {
  return detail::shuffle_words(value, [&](unsigned w) { return __shfl_up_sync(mask, w, delta, width); });
}

//! `value` from lane `src_lane` of the calling lane's `width`-lane segment (a broadcast when
//! every lane names the same one). Every lane in `mask` must call it; no shared
//! memory, no barrier (the warp's lanes in `mask` exchange registers).
//! \code
//! const float first = tilecraft::shuffle_index(x, 0);  // lane 0's x in every lane
//! \endcode
template <Shuffleable T>
TILECRAFT_DEVICE T shuffle_index(const T& value, int src_lane, int width = warp_threads,
                                 unsigned mask = full_warp_mask) {
  return detail::shuffle_words(value, [&](unsigned w) { return __shfl_sync(mask, w, src_lane, width); });
}
#endif

}  // namespace tilecraft
