//! \file memory/global_word.cuh
//! One vector ("word") of 1 to 16 bytes read from or written to global memory, with a cache
//! hint: the unit every tile copy and the device-wide reduce move.
#pragma once

#include <cstring>

#include <vector_types.h>

#include "../arch/global_access.cuh"
#include "../config.cuh"

namespace tilecraft {

//! How a copy's vector accesses to global memory use the caches.
enum class CacheHint {
  //! Plain loads and stores: lines are allocated in L1 (loads) and L2 as usual.
  normal,
  //! Data touched once: loads take the read-only path without allocating in L1 and let L2
  //! fetch 256-byte blocks (sm_80+); stores are evict-first. The source must not be written by
  //! any thread while the kernel runs (see arch/global_access.cuh). Opt in only after
  //! measuring: for whole-GPU streams it is slower than normal (measured: benchmarks/TUNING.md).
  streaming,
};

namespace detail {

// The register type of one Bytes-wide vector.
template <int Bytes>
struct VectorWord;
template <>
struct VectorWord<1> {
  using type = unsigned char;
};
template <>
struct VectorWord<2> {
  using type = unsigned short;
};
template <>
struct VectorWord<4> {
  using type = unsigned int;
};
template <>
struct VectorWord<8> {
  using type = uint2;
};
template <>
struct VectorWord<16> {
  using type = uint4;
};
template <int Bytes>
using vector_word_t = typename VectorWord<Bytes>::type;

#if defined(__CUDACC__)

// One aligned vector from or to global memory, with the requested cache behaviour.
template <CacheHint Hint, class Word>
TILECRAFT_DEVICE Word load_global_word(const Word* p) {
  if constexpr (Hint == CacheHint::streaming && requires { arch::ld_global_stream(p); }) {
    return arch::ld_global_stream(p);
  } else {
    return *p;
  }
}
template <CacheHint Hint, class Word>
TILECRAFT_DEVICE void store_global_word(Word* p, const Word& v) {
  if constexpr (Hint == CacheHint::streaming && requires { arch::st_global_stream(p, v); }) {
    arch::st_global_stream(p, v);
  } else {
    *p = v;
  }
}

// A vector of global memory as one access (Vector: p is aligned to the word) or element by
// element (any alignment of T).
template <bool Vector, CacheHint Hint, class Word, class T>
TILECRAFT_DEVICE Word read_global_vector(const T* p) {
  if constexpr (Vector) {
    return load_global_word<Hint>(reinterpret_cast<const Word*>(p));
  } else {
    T v[sizeof(Word) / sizeof(T)];
#pragma unroll
    for (std::size_t j = 0; j < sizeof(Word) / sizeof(T); ++j) v[j] = p[j];
    Word w;
    std::memcpy(&w, v, sizeof(Word));
    return w;
  }
}
template <bool Vector, CacheHint Hint, class Word, class T>
TILECRAFT_DEVICE void write_global_vector(T* p, const Word& w) {
  if constexpr (Vector) {
    store_global_word<Hint>(reinterpret_cast<Word*>(p), w);
  } else {
    T v[sizeof(Word) / sizeof(T)];
    std::memcpy(v, &w, sizeof(Word));
#pragma unroll
    for (std::size_t j = 0; j < sizeof(Word) / sizeof(T); ++j) p[j] = v[j];
  }
}

#endif  // __CUDACC__

}  // namespace detail
}  // namespace tilecraft
