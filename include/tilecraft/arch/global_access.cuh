//! \file arch/global_access.cuh
//! Raw PTX wrappers: cache-hinted 4-, 8- and 16-byte global loads and stores.
//!
//! Data that a kernel touches exactly once (a transpose, a copy, a reduction's input) gains
//! nothing from being kept in L1 or L2, and loses when it pushes out data that is reused.
//! These wrappers say so to the memory system:
//!   - ld_global_stream: `ld.global.nc.L1::no_allocate` (read-only path, no L1 line), plus
//!     `.L2::256B` on sm_80+, a prefetch-size hint: L2 fetches the 256-byte block around the
//!     sectors asked for, which a warp's neighbours read next;
//!   - st_global_stream: `st.global.cs` (cache streaming: the line is allocated evict-first, so
//!     it is the first to leave L2).
//! The `.nc` load requires that nothing writes the location while the kernel runs. The loads
//! are neither `volatile` nor memory-clobbering, so that the compiler schedules them freely:
//! it may move one across barriers, fences and `griddepcontrol.wait` (arch::wait_for_dependencies),
//! so data that a programmatic-launch predecessor writes must not be read with them.
#pragma once

#include <vector_types.h>

#include <nv/target>

#include "../config.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! 16-byte streaming load (see the file comment); `p` must be 16-byte aligned and not written
//! by any thread during the kernel.
//! \code
//! // A copy that reads and writes each 16 bytes once: neither side kept in the caches.
//! const auto* src = reinterpret_cast<const uint4*>(in4);
//! auto* dst = reinterpret_cast<uint4*>(out);
//! const uint4 v = tilecraft::arch::ld_global_stream(src + threadIdx.x);
//! tilecraft::arch::st_global_stream(dst + threadIdx.x, v);
//! \endcode
TILECRAFT_DEVICE uint4 ld_global_stream(const uint4* p) {
  uint4 v;
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                    (asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                         : "l"(p));),
                    (asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                         : "l"(p));))
  return v;
}

//! 8-byte streaming load; `p` 8-byte aligned.
TILECRAFT_DEVICE uint2 ld_global_stream(const uint2* p) {
  uint2 v;
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                    (asm("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0, %1}, [%2];"
                         : "=r"(v.x), "=r"(v.y)
                         : "l"(p));),
                    (asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];"
                         : "=r"(v.x), "=r"(v.y)
                         : "l"(p));))
  return v;
}

//! 4-byte streaming load; `p` 4-byte aligned.
TILECRAFT_DEVICE unsigned ld_global_stream(const unsigned* p) {
  unsigned v;
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                    (asm("ld.global.nc.L1::no_allocate.L2::256B.u32 %0, [%1];"
                         : "=r"(v)
                         : "l"(p));),
                    (asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];"
                         : "=r"(v)
                         : "l"(p));))
  return v;
}

//! 16-byte evict-first store; `p` 16-byte aligned.
TILECRAFT_DEVICE void st_global_stream(uint4* p, const uint4& v) {
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

//! 8-byte evict-first store; `p` 8-byte aligned.
TILECRAFT_DEVICE void st_global_stream(uint2* p, const uint2& v) {
  asm volatile("st.global.cs.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(v.x), "r"(v.y) : "memory");
}

//! 4-byte evict-first store; `p` 4-byte aligned.
TILECRAFT_DEVICE void st_global_stream(unsigned* p, const unsigned& v) {
  asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
