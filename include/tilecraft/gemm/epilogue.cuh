//! \file gemm/epilogue.cuh
//! What a GEMM does with each finished accumulator: the epilogue functor. tiled_gemm calls it
//! once per element of C inside the matrix, with the accumulator, the old value of C (read
//! only when reads_c() is true) and the element's coordinates, and stores what it returns.
#pragma once

#include <concepts>
#include <cstdint>

#include "../config.cuh"

namespace tilecraft {

//! A GEMM epilogue: `e.reads_c()` says whether the old C is needed (when false, C is not read,
//! so NaN or uninitialised memory in C cannot leak into the result; the functor then gets 0),
//! and `e(acc, c_old, row, col)` returns the value to store at C(row, col).
template <class E>
concept GemmEpilogue = std::copy_constructible<E> && requires(const E& e, float x, std::int64_t i) {
  { e.reads_c() } -> std::convertible_to<bool>;
  { e(x, x, i, i) } -> std::convertible_to<float>;
};

//! BLAS's epilogue: C = alpha * acc + beta * C. With beta == 0, C is not read (BLAS semantics:
//! C may hold NaN or be uninitialised).
//! \code
//! tilecraft::LinearCombination epi{2.0f, 0.5f};  // C = 2 * A * B + 0.5 * C
//! static_assert(tilecraft::GemmEpilogue<tilecraft::LinearCombination>);
//! \endcode
struct LinearCombination {
  //! Scale of the product.
  float alpha = 1.0f;
  //! Scale of the old C; 0 means C is write-only.
  float beta = 0.0f;
  //! Whether the old C is read: beta != 0.
  TILECRAFT_HOST_DEVICE bool reads_c() const { return beta != 0.0f; }
  //! alpha * acc + beta * c_old (just alpha * acc when beta == 0).
  TILECRAFT_HOST_DEVICE float operator()(float acc, float c_old, std::int64_t, std::int64_t) const {
    return beta != 0.0f ? alpha * acc + beta * c_old : alpha * acc;
  }
};

}  // namespace tilecraft
