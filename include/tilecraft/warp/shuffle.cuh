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

enum class ShuffleKind { down, up, index };

// One shfl per 32-bit word of `value`. The instruction is a template argument, not a callable:
// at -O1 (the compatibility builds) NVVM kept a lambda's closure as a stack object and gave it
// the local-memory slot of an array still live in the caller (a block scan's items, read again
// after its warp shuffles), so every shuffle inside a block scan could overwrite its inputs.
template <ShuffleKind Kind, Shuffleable T>
TILECRAFT_DEVICE T shuffle_words(const T& value, unsigned mask, int arg, int width) {
  constexpr int words = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned w[words] = {};
  std::memcpy(w, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) {
    if constexpr (Kind == ShuffleKind::down) {
      w[i] = __shfl_down_sync(mask, w[i], static_cast<unsigned>(arg), width);
    } else if constexpr (Kind == ShuffleKind::up) {
      w[i] = __shfl_up_sync(mask, w[i], static_cast<unsigned>(arg), width);
    } else {
      w[i] = __shfl_sync(mask, w[i], arg, width);
    }
  }
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
  return detail::shuffle_words<detail::ShuffleKind::down>(value, mask, static_cast<int>(delta), width);
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
  return detail::shuffle_words<detail::ShuffleKind::up>(value, mask, static_cast<int>(delta), width);
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
  return detail::shuffle_words<detail::ShuffleKind::index>(value, mask, src_lane, width);
}
#endif

}  // namespace tilecraft
