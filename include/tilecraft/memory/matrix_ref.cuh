//! \file memory/matrix_ref.cuh
//! A non-owning view of a row-major matrix in global memory: what tile copies read and write.
#pragma once

#include <cstdint>

#include "../config.cuh"

namespace tilecraft {

//! A row-major matrix in global memory: `rows x cols` elements, row r starting at
//! `data + r * ld` (ld >= cols, in elements). T may be const for read-only sources. A vector
//! is the 1 x n matrix `{p, 1, n, n}`.
//! \code
//! tilecraft::MatrixRef<const float> a{d_a, m, k, lda};
//! float x = a(i, j);  // d_a[i * lda + j]
//! \endcode
template <class T>
struct MatrixRef {
  //! Element (0, 0).
  T* data;
  //! Number of rows (>= 0).
  std::int64_t rows;
  //! Number of columns (>= 0).
  std::int64_t cols;
  //! Leading dimension: elements from the start of one row to the start of the next (>= cols).
  std::int64_t ld;

  //! Element (r, c); no bounds check.
  TILECRAFT_HOST_DEVICE T& operator()(std::int64_t r, std::int64_t c) const { return data[r * ld + c]; }
};

}  // namespace tilecraft
