//! \file gemm/epilogue.cuh
//! What a GEMM does with each finished accumulator: the epilogue functor. tiled_gemm calls it
//! once per element of C inside the matrix, with the accumulator, the old value of C (read
//! only when reads_c() is true) and the element's 64-bit coordinates; the values in the
//! accumulator's type (float or double; float for a GEMM of __half or __nv_bfloat16 operands,
//! whose C may be float, __half or __nv_bfloat16: the old value comes converted to float and
//! the result is rounded to nearest into C's type), and stores what it returns.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "../config.cuh"

namespace tilecraft {

namespace detail {
// Whether R is a floating type narrower than T: an epilogue returning it would round every
// element (a float epilogue, LinearCombination, on a double GEMM).
template <class R, class T>
constexpr bool narrower_floating() {
  using U = std::remove_cvref_t<R>;
  if constexpr (std::is_floating_point_v<T> && std::is_floating_point_v<U>) {
    return sizeof(U) < sizeof(T);
  } else {
    return false;
  }
}
}  // namespace detail

//! A GEMM epilogue for elements of type T (float, the default, or double): `e.reads_c()` says
//! whether the old C is needed (when false, C is not read, so NaN or uninitialised memory in C
//! cannot leak into the result; the functor then gets 0), and `e(acc, c_old, row, col)`
//! returns the value to store at C(row, col): something convertible to T, but not a narrower
//! floating type (LinearCombination, float's, is not a double GEMM's epilogue).
//! \code
//! struct Scale {
//!   double s;
//!   __host__ __device__ bool reads_c() const { return false; }
//!   __host__ __device__ double operator()(double acc, double, std::int64_t, std::int64_t) const { return s * acc; }
//! };
//! static_assert(tilecraft::GemmEpilogue<Scale, double>);
//! \endcode
template <class E, class T = float>
concept GemmEpilogue = std::copy_constructible<E> && requires(const E& e, T x, std::int64_t i) {
  { e.reads_c() } -> std::convertible_to<bool>;
  { e(x, x, i, i) } -> std::convertible_to<T>;
} && !detail::narrower_floating<std::invoke_result_t<const E&, T, T, std::int64_t, std::int64_t>, T>();

//! BLAS's epilogue on elements of type T: C = alpha * acc + beta * C. With beta == 0, C is not
//! read (BLAS semantics: C may hold NaN or be uninitialised). LinearCombination is the float
//! one; the arguments deduce T (`BasicLinearCombination{2.0, 0.5}` is the double one).
//! \code
//! tilecraft::BasicLinearCombination<double> epi{2.0, 0.5};  // C = 2 * A * B + 0.5 * C, in double
//! static_assert(tilecraft::GemmEpilogue<tilecraft::BasicLinearCombination<double>, double>);
//! \endcode
template <class T>
struct BasicLinearCombination {
  //! Scale of the product.
  T alpha = T(1);
  //! Scale of the old C; 0 means C is write-only.
  T beta = T(0);
  //! Whether the old C is read: beta != 0.
  TILECRAFT_HOST_DEVICE bool reads_c() const { return beta != T(0); }
  //! alpha * acc + beta * c_old (just alpha * acc when beta == 0).
  TILECRAFT_HOST_DEVICE T operator()(T acc, T c_old, std::int64_t, std::int64_t) const {
    return beta != T(0) ? alpha * acc + beta * c_old : alpha * acc;
  }
};
//! \cond DEDUCTION_GUIDES
template <class T>
BasicLinearCombination(T) -> BasicLinearCombination<T>;
template <class T>
BasicLinearCombination(T, T) -> BasicLinearCombination<T>;
//! \endcond

//! BLAS's epilogue for float: C = alpha * acc + beta * C (see BasicLinearCombination).
//! \code
//! tilecraft::LinearCombination epi{2.0f, 0.5f};  // C = 2 * A * B + 0.5 * C
//! static_assert(tilecraft::GemmEpilogue<tilecraft::LinearCombination>);
//! \endcode
using LinearCombination = BasicLinearCombination<float>;

}  // namespace tilecraft
