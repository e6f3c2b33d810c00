//! \file arch/ldmatrix.cuh
//! Raw PTX wrappers: `ldmatrix`, the warp's load of 8 x 8 matrices of 16-bit elements from
//! shared memory into the register fragments of the tensor cores' `mma.sync` (sm_75 and newer).
//!
//! One `ldmatrix.x{1,2,4}` reads 1, 2 or 4 matrices. The 8 rows of matrix j (16 bytes each,
//! 16-byte aligned, anywhere in shared memory) come from the addresses lanes 8j ... 8j + 7 pass;
//! the other lanes' addresses are not read. Afterwards lane i holds, in register j, the two
//! elements (i / 4, 2 (i % 4)) and (i / 4, 2 (i % 4) + 1) of matrix j; with `.trans` the
//! elements (2 (i % 4), i / 4) and (2 (i % 4) + 1, i / 4), i.e. matrix j read column-wise.
//! Every lane of the warp must execute it (`.sync.aligned`), with the same shape.
//!
//! Bank conflicts: each matrix is one phase of eight 16-byte rows; memory/bank_model.cuh's
//! ldmatrix_wavefronts counts them (one wavefront per matrix when the 8 rows fall in distinct
//! 16-byte bank groups: Padded by 16 bytes, or Swizzled in 16-byte chunks over 128-byte rows).
//!
//! Below sm_75 each wrapper traps; tilecraft builds for sm_75 and newer only.
#pragma once

#include <cstddef>
#include <cstdint>

#include <nv/target>

#include "../config.cuh"
#include "smem_address.cuh"

namespace tilecraft::arch {

//! The matrix counts one ldmatrix reads.
template <int Matrices>
inline constexpr bool valid_ldmatrix_count = Matrices == 1 || Matrices == 2 || Matrices == 4;

#if defined(__CUDACC__)

//! ldmatrix.sync.aligned.m8n8.x{Matrices}.shared.b16 (Trans: with .trans): `row` is this lane's
//! row address in shared memory (lanes 8j ... 8j + 7 give matrix j's rows 0 ... 7; 16-byte
//! aligned); d[j] receives this lane's two elements of matrix j (see the file comment).
//! \code
//! __global__ void load_fragment(const std::uint16_t* a) {  // 8 x 8 16-bit elements; one warp
//!   __shared__ alignas(16) std::uint16_t tile[8][8];
//!   for (int i = threadIdx.x; i < 64; i += 32) tile[i / 8][i % 8] = a[i];
//!   __syncwarp();
//!   std::uint32_t frag[1];  // lane i: elements (i / 4, 2 (i % 4)) and (i / 4, 2 (i % 4) + 1)
//!   tilecraft::arch::ldmatrix<1>(frag, &tile[threadIdx.x % 8][0]);
//! }
//! \endcode
template <int Matrices, bool Trans = false>
TILECRAFT_DEVICE void ldmatrix(std::uint32_t (&d)[static_cast<std::size_t>(Matrices)], const void* row) {
  static_assert(valid_ldmatrix_count<Matrices>, "ldmatrix<Matrices>: one ldmatrix reads 1, 2 or 4 matrices");
  const std::uint32_t a = smem_address(row);
  if constexpr (Matrices == 1) {
    if constexpr (Trans) {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_75,
                        (asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
                                      : "=r"(d[0])
                                      : "r"(a)
                                      : "memory");),
                        (__trap();))
    } else {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_75,
                        (asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
                                      : "=r"(d[0])
                                      : "r"(a)
                                      : "memory");),
                        (__trap();))
    }
  } else if constexpr (Matrices == 2) {
    if constexpr (Trans) {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_75,
                        (asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                                      : "=r"(d[0]), "=r"(d[1])
                                      : "r"(a)
                                      : "memory");),
                        (__trap();))
    } else {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_75,
                        (asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                                      : "=r"(d[0]), "=r"(d[1])
                                      : "r"(a)
                                      : "memory");),
                        (__trap();))
    }
  } else if constexpr (Matrices == 4) {
    if constexpr (Trans) {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_75,
                        (asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                                      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                                      : "r"(a)
                                      : "memory");),
                        (__trap();))
    } else {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_75,
                        (asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                                      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                                      : "r"(a)
                                      : "memory");),
                        (__trap();))
    }
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
