//! \file gemm/warp_mma.cuh
//! The thread and warp levels of a SIMT GEMM: each thread multiplies RM x RN register blocks
//! (thread_mma), and a warp reads its threads' fragments from one stage's shared tiles through
//! the lane map GemmShape defines (WarpMma), what CUTLASS calls the warp-level SIMT MMA.
//! Everything is indexed with compile-time constants, so the accumulators and fragments live
//! in registers.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../config.cuh"
#include "gemm_shape.cuh"

namespace tilecraft {

#if defined(__CUDACC__)

//! Thread level: acc[i][j] += a[i] * b[j], RM * RN fused multiply-adds on registers (FFMA for
//! float, DFMA for double).
//! \code
//! float acc[8][8] = {}, a[8], b[8];
//! // ... a and b filled ...
//! tilecraft::thread_mma(acc, a, b);
//! double dacc[4][8] = {}, da[4], db[8];
//! // ... da and db filled ...
//! tilecraft::thread_mma(dacc, da, db);
//! \endcode
template <class T, std::size_t RM, std::size_t RN>
TILECRAFT_DEVICE void thread_mma(T (&acc)[RM][RN], const T (&a)[RM], const T (&b)[RN]) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "thread_mma: T must be float or double");
#pragma unroll
  for (std::size_t i = 0; i < RM; ++i) {
#pragma unroll
    for (std::size_t j = 0; j < RN; ++j) {
      if constexpr (std::is_same_v<T, float>) {
        acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      } else {
        acc[i][j] = fma(a[i], b[j], acc[i][j]);
      }
    }
  }
}

//! Warp level: one thread's view of the warp tile of a GemmShape. Constructed once per
//! thread from its warp and lane; multiply() runs the TK steps of one stage: at step k the
//! thread reads its RM elements of A and RN of B from row k of the stage's tiles in vectors of
//! GemmShape::vector_m / vector_n elements (min(R, 16 / sizeof(T)): LDS.128 when R fills a
//! 16-byte vector; conflict-free by GemmShape's static_asserts) and issues RM * RN FMAs.
//! Accumulator (i, j) is C element (row(i), col(j)) of the block tile. No barriers; reads
//! shared memory only.
//! \code
//! using Shape = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<8, 8>, 8>;
//! __device__ void step(const Shape::Stage& stage, float (&acc)[8][8]) {
//!   const tilecraft::WarpMma<Shape> mma(threadIdx.x / 32, threadIdx.x % 32);
//!   mma.multiply(stage, acc);
//! }
//! \endcode
template <class Shape>
class WarpMma {
  using Rb = typename Shape::reg_block;
  using T = typename Shape::element_type;
  static constexpr int vm = Shape::vector_m;
  static constexpr int vn = Shape::vector_n;

 public:
  //! Rows of the thread's register block.
  static constexpr std::size_t rm = static_cast<std::size_t>(Rb::rows);
  //! Columns of the thread's register block.
  static constexpr std::size_t rn = static_cast<std::size_t>(Rb::cols);
  //! The thread's accumulators.
  using Accumulators = T[rm][rn];

  //! The view of lane `lane` of warp `warp` (of the block's Shape::warps).
  TILECRAFT_DEVICE WarpMma(int warp, int lane)
      : a_col_(Shape::fragment_col_a(warp, lane, 0)), b_col_(Shape::fragment_col_b(warp, lane, 0)) {}

  //! Block-tile row of accumulator row i.
  TILECRAFT_DEVICE int row(int i) const { return a_col_ + (i / vm) * Shape::lanes_m * vm + i % vm; }
  //! Block-tile column of accumulator column j.
  TILECRAFT_DEVICE int col(int j) const { return b_col_ + (j / vn) * Shape::lanes_n * vn + j % vn; }

  //! The thread's A fragment of step k.
  TILECRAFT_DEVICE void load_a(const typename Shape::TileA& tile, int k, T (&a)[rm]) const {
#pragma unroll
    for (int g = 0; g < Shape::groups_m; ++g) {
      load_vector<vm>(&tile(k, a_col_ + g * Shape::lanes_m * vm), &a[g * vm]);
    }
  }
  //! The thread's B fragment of step k.
  TILECRAFT_DEVICE void load_b(const typename Shape::TileB& tile, int k, T (&b)[rn]) const {
#pragma unroll
    for (int g = 0; g < Shape::groups_n; ++g) {
      load_vector<vn>(&tile(k, b_col_ + g * Shape::lanes_n * vn), &b[g * vn]);
    }
  }

  //! acc += the products of one stage (TK steps): at step k, the thread's A and B fragments
  //! times each other.
  TILECRAFT_DEVICE void multiply(const typename Shape::Stage& stage, Accumulators& acc) const {
#pragma unroll
    for (int k = 0; k < Shape::tile_k; ++k) {
      T a[rm];
      T b[rn];
      load_a(stage.a, k, a);
      load_b(stage.b, k, b);
      thread_mma(acc, a, b);
    }
  }

 private:
  // One vector of V elements: 16 bytes (float4, double2), 8 (float2) or one element.
  template <int V>
  TILECRAFT_DEVICE static void load_vector(const T* src, T* dst) {
    if constexpr (std::is_same_v<T, double>) {
      if constexpr (V == 2) {
        const double2 v = *reinterpret_cast<const double2*>(src);
        dst[0] = v.x;
        dst[1] = v.y;
      } else {
        dst[0] = *src;
      }
    } else if constexpr (V == 4) {
      const float4 v = *reinterpret_cast<const float4*>(src);
      dst[0] = v.x;
      dst[1] = v.y;
      dst[2] = v.z;
      dst[3] = v.w;
    } else if constexpr (V == 2) {
      const float2 v = *reinterpret_cast<const float2*>(src);
      dst[0] = v.x;
      dst[1] = v.y;
    } else {
      dst[0] = *src;
    }
  }

  int a_col_;
  int b_col_;
};

#endif  // __CUDACC__

}  // namespace tilecraft
