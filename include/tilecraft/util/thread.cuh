//! \file util/thread.cuh
//! Thread and warp coordinates shared by the block- and warp-level primitives.
#pragma once

#include "../config.cuh"

namespace tilecraft {

#if defined(__CUDACC__)
//! Linear rank of the calling thread in its block, x fastest (the order CUDA forms warps in),
//! for 1D, 2D and 3D blocks.
TILECRAFT_DEVICE int thread_rank() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

//! Number of threads in the calling block.
TILECRAFT_DEVICE int block_threads() { return static_cast<int>(blockDim.x * blockDim.y * blockDim.z); }

//! Lane of the calling thread in its warp (0 ... 31).
TILECRAFT_DEVICE int lane_id() { return thread_rank() & (warp_threads - 1); }

//! Index of the calling thread's warp in its block.
TILECRAFT_DEVICE int warp_id() { return thread_rank() / warp_threads; }
#endif

}  // namespace tilecraft
