//! \file util/concepts.cuh
//! The type rules tilecraft's templates state in their heads.
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "../config.cuh"

namespace tilecraft {

//! A type a shared-memory tile can hold: copied bytewise between global and shared memory
//! (trivially copyable), with a width the memory system moves in one access (1, 2, 4, 8 or
//! 16 bytes).
template <class T>
concept TileElement = std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T> &&
    (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);

//! A type warp shuffles and shared memory can carry: trivially copyable (moved as 32-bit words)
//! and default constructible (so it can sit in __shared__ temp storage).
template <class T>
concept Shuffleable = std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>;

//! A binary reduction operator over T: op(T, T) yields something convertible back to T.
//! Associativity cannot be checked by a compiler; tilecraft's results are exact only for
//! associative operators (floating-point sums are associative up to rounding).
template <class Op, class T>
concept ReductionOp = std::copy_constructible<Op> && requires(Op op, T a, T b) {
  { op(a, b) } -> std::convertible_to<T>;
};

//! A positive compile-time thread count that fits in one block.
template <int N>
concept ValidBlockThreads = (N >= 1 && N <= max_block_threads);

}  // namespace tilecraft
