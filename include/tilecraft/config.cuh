//! \file config.cuh
//! Version, compiler requirements, portability macros and the hardware constants that the
//! rest of tilecraft is written against. Usable from host-only translation units (g++).
#pragma once

#if !defined(__cplusplus) || __cplusplus < 202002L
#error \
    "tilecraft requires C++20: compile with -std=c++20 (CMake 3.25 cannot say cuda_std_20 for nvcc; tilecraft::tilecraft adds the flag for you)"
#endif

//! Major version: changes that break existing code.
#define TILECRAFT_VERSION_MAJOR 0
//! Minor version: additions (before 1.0, also breaking changes).
#define TILECRAFT_VERSION_MINOR 2
//! Patch version: fixes.
#define TILECRAFT_VERSION_PATCH 0
//! Single integer version, MMmmpp.
#define TILECRAFT_VERSION (TILECRAFT_VERSION_MAJOR * 10000 + TILECRAFT_VERSION_MINOR * 100 + TILECRAFT_VERSION_PATCH)

#if defined(__CUDACC__)
//! Marks functions usable on host and device (constexpr layout and bank-model code); plain
//! functions for host compilers.
#define TILECRAFT_HOST_DEVICE __host__ __device__
//! Marks device functions (inlined: tilecraft's primitives live inside the caller's kernel).
#define TILECRAFT_DEVICE __device__ __forceinline__
#else
// Host compilers see the constexpr layout/bank-model code only; device-only entities are
// hidden behind __CUDACC__ in their own headers.
#define TILECRAFT_HOST_DEVICE
#define TILECRAFT_DEVICE inline
#endif

//! Open and close the namespace of the host-callable device algorithms (reduce, the scans,
//! select_if / partition, the histograms, transpose, stencil_1d) and their dispatch. Under a host compiler those launch
//! nothing and return cudaErrorInvalidDeviceFunction after checking their arguments and
//! answering the size query as nvcc's form does: two bodies of one function, which a program
//! calling it from a .cpp and a .cu file would hold twice (the one-definition rule broken, and
//! the linker keeping either). An inline namespace of its own for each compiler (names no user
//! code is likely to have) makes them two functions; callers still name them
//! tilecraft::inclusive_scan and so on.
#if defined(__CUDACC__)
#define TILECRAFT_LAUNCH_NAMESPACE_BEGIN inline namespace nvcc_launchers {
#else
#define TILECRAFT_LAUNCH_NAMESPACE_BEGIN inline namespace host_compiler_stubs {
#endif
//! Closes TILECRAFT_LAUNCH_NAMESPACE_BEGIN's namespace.
#define TILECRAFT_LAUNCH_NAMESPACE_END }

//! Device-side checks of run-time preconditions (blockDim matching a template parameter,
//! alignment, shared-memory address space). Off by default because they cost registers and
//! branches in hot loops; define TILECRAFT_ENABLE_DEVICE_ASSERTIONS to turn them on.
//! A failed check prints the condition with its file and line and traps (the kernel fails with
//! cudaErrorIllegalInstruction or cudaErrorAssert); NDEBUG does not turn it off.
#if defined(TILECRAFT_ENABLE_DEVICE_ASSERTIONS) && defined(__CUDACC__)
#include <cstdio>
#include <cstdlib>
#include <nv/target>
namespace tilecraft::detail {
__host__ __device__ inline void assertion_failed(const char* cond, const char* file, int line) {
  NV_IF_TARGET(NV_IS_DEVICE, (printf("%s:%d: tilecraft assertion failed: %s\n", file, line, cond); __trap();),
               (std::fprintf(stderr, "%s:%d: tilecraft assertion failed: %s\n", file, line, cond); std::abort();))
}
}  // namespace tilecraft::detail
#define TILECRAFT_ASSERT(cond) \
  ((cond) ? static_cast<void>(0) : ::tilecraft::detail::assertion_failed(#cond, __FILE__, __LINE__))
#else
#define TILECRAFT_ASSERT(cond) ((void)0)
#endif

namespace tilecraft {

//! Threads in a warp on every architecture tilecraft supports (sm_75 and newer).
inline constexpr int warp_threads = 32;
//! Shared memory is split into 32 banks ...
inline constexpr int smem_banks = 32;
//! ... of 4 bytes each; one wavefront serves at most one 4-byte word per bank.
inline constexpr int smem_bank_bytes = 4;
//! Bytes one shared-memory wavefront can deliver (32 banks x 4 bytes).
inline constexpr int smem_wavefront_bytes = smem_banks * smem_bank_bytes;
//! Largest shared-memory allocation a single block may have on sm_90 (227 KiB, opt-in above
//! 48 KiB through cudaFuncSetAttribute). Tiles larger than this can never be resident.
inline constexpr int max_smem_per_block = 227 * 1024;
//! Largest static __shared__ allocation without opting in to dynamic shared memory.
inline constexpr int max_static_smem_per_block = 48 * 1024;
//! Largest thread block on every supported architecture.
inline constexpr int max_block_threads = 1024;
//! Widest single memory instruction (ld/st.v4.b32, cp.async.cg 16 bytes).
inline constexpr int max_vector_bytes = 16;

}  // namespace tilecraft
