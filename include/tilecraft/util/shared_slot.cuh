//! \file util/shared_slot.cuh
//! Room for values of a trivially copyable T in `__shared__` temp storage, whatever T's default
//! constructor does (internal).
#pragma once

#include <type_traits>

#include "../config.cuh"

namespace tilecraft::detail {

//! sizeof(T) bytes aligned as T, with no constructor to run.
template <class T>
struct alignas(T) RawSlot {
  unsigned char bytes[sizeof(T)];
};

//! The type temp storage holds a T in: T itself where T is trivially default constructible;
//! otherwise (default member initializers, a user-written default constructor) raw bytes, since
//! a `__shared__` variable can run no initialization. Every trivially copyable T has an implicit
//! lifetime, so its objects come to exist in those bytes as they are written (C++20
//! [intro.object]); slots() gives the T* to read and write them through.
template <class T>
using SharedSlot = std::conditional_t<std::is_trivially_default_constructible_v<T>, T, RawSlot<T>>;

static_assert(sizeof(RawSlot<double>) == sizeof(double) && alignof(RawSlot<double>) == alignof(double));

#if defined(__CUDACC__)
//! The T's stored at `p` (SharedSlot<T> values): p itself where SharedSlot<T> is T. Inlined at
//! every optimization level, so that device code at -O1 (the compatibility variants) keeps its
//! shared-memory accesses exactly as they were with T stored directly.
template <class T>
__host__ __device__ __forceinline__ T* slots(SharedSlot<T>* p) {
  return reinterpret_cast<T*>(p);
}
#endif

}  // namespace tilecraft::detail
