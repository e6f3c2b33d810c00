//! \file gemm/register_block.cuh
//! The thread level of a GEMM: the RM x RN block of C one thread accumulates in registers.
//! (The micro-kernel that uses it comes with tiled_gemm; this header holds the shape and its
//! rules, which the warp and block levels are computed from.)
#pragma once

#include "../config.cuh"
#include "../util/math.cuh"

namespace tilecraft {

//! A thread's register block: RM x RN accumulators of C. Per step of k the thread loads RM
//! elements of A and RN of B into registers and issues RM * RN FMAs, all register-indexed at
//! compile time. Fragments are read from shared memory in vectors of up to 16 bytes (LDS.128:
//! 4 floats or 2 doubles); an R longer than that forms R / vector groups spread across the
//! warp tile, which is what keeps every fragment load conflict-free (GemmShape defines the
//! vectors and groups, since they depend on the element type).
//! Rules: RM and RN are powers of two from 1 to 16; RM * RN <= 128 (accumulators must stay in
//! registers next to the fragments: 128 + 32 of the 255 a thread may have for float). A double
//! takes two registers: 8 x 8 doubles need about 240 (one block of 256 threads per SM), which
//! is why the double defaults use 4 x 8 and 4 x 4.
//! \code
//! using Rb = tilecraft::RegBlock<8, 8>;  // 64 accumulators, 2 + 2 LDS.128 per k for float
//! static_assert(Rb::accumulators == 64);
//! \endcode
template <int RM, int RN>
struct RegBlock {
  static_assert(is_pow2(RM) && RM <= 16 && is_pow2(RN) && RN <= 16,
                "RegBlock<RM, RN>: RM and RN must be powers of two from 1 to 16");
  static_assert(RM * RN <= 128,
                "RegBlock<RM, RN>: RM * RN must be <= 128 (accumulators and fragments must fit in registers)");
  //! Rows of C per thread.
  static constexpr int rows = RM;
  //! Columns of C per thread.
  static constexpr int cols = RN;
  //! Accumulators per thread (registers for float; twice as many for double).
  static constexpr int accumulators = RM * RN;
};

//! True for every RegBlock instantiation.
template <class>
inline constexpr bool is_reg_block_v = false;
//! \cond SPECIALIZATIONS
template <int RM, int RN>
inline constexpr bool is_reg_block_v<RegBlock<RM, RN>> = true;
//! \endcond

}  // namespace tilecraft
