//! \file arch/griddepcontrol.cuh
//! Raw PTX wrappers: programmatic dependent launch (`griddepcontrol`, sm_90 and later).
//!
//! A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization may start before
//! the kernel ahead of it in the stream has finished: as soon as every block of that kernel has
//! executed launch_dependents (or exited). The dependent must then call wait_for_dependencies
//! before it touches anything the earlier kernel writes. Below sm_90 both wrappers compile to
//! nothing, so a launcher may use the attribute only for code built for sm_90 or later (PTX for
//! an older target, JIT-compiled on a Hopper GPU, would not wait): check
//! cudaFuncAttributes::ptxVersion and binaryVersion first.
//!
//! A dependent that reads nothing of the kernel before it (the two run side by side) must
//! still call wait_for_dependencies before it exits when the stream's later work relies on that
//! kernel: the dependent's completion is not documented to imply its predecessor's, and the
//! wait makes it so.
//! \code
//! __global__ void clear(unsigned* flags, int n) {
//!   tilecraft::arch::launch_dependents();  // the consumer may launch now
//!   for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) flags[i] = 0;
//! }
//! __global__ void consume(const float* in, unsigned* flags, float* out) {
//!   const float x = in[threadIdx.x];              // does not depend on clear()
//!   tilecraft::arch::wait_for_dependencies();      // clear() has finished, its stores are visible
//!   if (threadIdx.x == 0) flags[blockIdx.x] = 1u;
//!   out[threadIdx.x] = x;
//! }
//! \endcode
#pragma once

#include <nv/target>

#include "../config.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! `griddepcontrol.launch_dependents`: this block no longer holds back the launch of the grid
//! that depends on this one programmatically (it starts once every block has said so or
//! exited). Says nothing about this grid's memory: the dependent still waits for it with
//! wait_for_dependencies. A no-op below sm_90.
TILECRAFT_DEVICE void launch_dependents() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.launch_dependents;" ::: "memory");))
}

//! `griddepcontrol.wait`: waits until the grids this one depends on programmatically have
//! completed and their memory operations are visible to this thread; returns at once in a grid
//! launched without the attribute. A no-op below sm_90.
TILECRAFT_DEVICE void wait_for_dependencies() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.wait;" ::: "memory");))
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
