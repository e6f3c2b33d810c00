//! \file util/math.cuh
//! Integer helpers used in index arithmetic and launch configuration. constexpr and usable on
//! host and device.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../config.cuh"

namespace tilecraft {

//! ceil(a / b) for non-negative a and positive b: the number of size-b tiles that cover a.
//! a + b - 1 must not overflow T (the launchers bound their sizes before they divide).
template <std::integral T>
TILECRAFT_HOST_DEVICE constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

//! The smallest multiple of b that is >= a (a >= 0, b > 0; the result must fit T).
template <std::integral T>
TILECRAFT_HOST_DEVICE constexpr T round_up(T a, T b) {
  return ceil_div(a, b) * b;
}

//! True for 1, 2, 4, 8, ...; false for zero and negative values.
template <std::integral T>
TILECRAFT_HOST_DEVICE constexpr bool is_pow2(T x) {
  return x > 0 && (x & (x - 1)) == 0;
}

//! floor(log2(x)) for x > 0.
template <std::integral T>
TILECRAFT_HOST_DEVICE constexpr int log2_floor(T x) {
  int r = 0;
  while (x > 1) {
    x >>= 1;
    ++r;
  }
  return r;
}

//! The largest power of two <= x, for x > 0.
template <std::integral T>
TILECRAFT_HOST_DEVICE constexpr T pow2_floor(T x) {
  return T{1} << log2_floor(x);
}

//! The smallest power of two >= x, for x > 0; the largest power of two T holds where x is above
//! it (no power of two >= x fits T).
template <std::integral T>
TILECRAFT_HOST_DEVICE constexpr T pow2_ceil(T x) {
  constexpr T largest = std::is_signed_v<T>
                            ? static_cast<T>(~(static_cast<std::make_unsigned_t<T>>(1) << (sizeof(T) * 8 - 1)))
                            : static_cast<T>(~T{0});
  T p{1};
  while (p < x && p <= largest / 2) p = static_cast<T>(p << 1);
  return p;
}

namespace detail {
//! True when the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a byte (the launchers'
//! argument checks; an empty range shares none).
inline bool bytes_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto ab = reinterpret_cast<std::uintptr_t>(a), bb = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes > 0 && b_bytes > 0 && ab < bb + b_bytes && bb < ab + a_bytes;
}
//! True when `p` is aligned to its element type (null is): an array the launchers may index.
template <class T>
bool element_aligned(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}
}  // namespace detail

}  // namespace tilecraft
