//! \file memory/matrix_ref.cuh
//! A non-owning view of a matrix in global memory, row- or column-major: what tile copies read
//! and write and what a GEMM takes its operands as.
#pragma once

#include <cstdint>

#include "../config.cuh"

namespace tilecraft {

//! Storage order of a matrix: which index is contiguous in memory.
enum class Order {
  row_major,  //!< (r, c) at r * ld + c: a row is contiguous (C, C++).
  col_major   //!< (r, c) at c * ld + r: a column is contiguous (Fortran, BLAS).
};

//! A matrix in global memory: `rows x cols` elements in order `O` with leading dimension `ld`
//! (row-major: elements from one row's start to the next, ld >= cols; column-major: from one
//! column's start to the next, ld >= rows). T may be const for read-only sources. A vector is
//! the 1 x n row-major matrix `{p, 1, n, n}`. The transpose of a row-major matrix is the
//! column-major view of the same memory (see transposed()), which is how a GEMM takes op(A).
//! Tile copies take row-major views.
//! \code
//! tilecraft::MatrixRef<const float> a{d_a, m, k, lda};
//! float x = a(i, j);  // d_a[i * lda + j]
//! tilecraft::MatrixRef<const float, tilecraft::Order::col_major> at = tilecraft::transposed(a);  // k x m
//! float y = at(j, i);  // the same element
//! \endcode
template <class T, Order O = Order::row_major>
struct MatrixRef {
  //! The storage order.
  static constexpr Order order = O;
  //! Element (0, 0).
  T* data;
  //! Number of rows (>= 0).
  std::int64_t rows;
  //! Number of columns (>= 0).
  std::int64_t cols;
  //! Leading dimension, in elements (see the class comment).
  std::int64_t ld;
  //! Element (r, c); no bounds check.
  TILECRAFT_HOST_DEVICE T& operator()(std::int64_t r, std::int64_t c) const {
    if constexpr (O == Order::row_major) {
      return data[r * ld + c];
    } else {
      return data[c * ld + r];
    }
  }
};

//! The transpose of `m` as a view of the same memory, in the other order.
template <class T, Order O>
TILECRAFT_HOST_DEVICE constexpr MatrixRef<T, O == Order::row_major ? Order::col_major : Order::row_major> transposed(
    const MatrixRef<T, O>& m) {
  return {m.data, m.cols, m.rows, m.ld};
}

//! Whether every row (row-major; column for column-major) of `m` starts on a 16-byte boundary:
//! the base is 16-byte aligned and ld * sizeof(T) is a multiple of 16. What a tile fill in
//! 16-byte vectors along the contiguous index needs.
template <class T, Order O>
TILECRAFT_HOST_DEVICE bool rows_vector_aligned(const MatrixRef<T, O>& m) {
  return reinterpret_cast<std::uintptr_t>(m.data) % 16 == 0 && (m.ld * static_cast<std::int64_t>(sizeof(T))) % 16 == 0;
}

}  // namespace tilecraft
