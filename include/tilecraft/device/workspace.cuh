//! \file device/workspace.cuh
//! Stream-ordered scratch memory for the device launchers that need it (the GEMM's split-K
//! slices and packed operands): a memory pool private to tilecraft, one per device, that keeps
//! up to workspace_keep_bytes between calls (the pools live in util/device_cache.cuh).
//!
//! Why not the device's default pool (plain cudaMallocAsync): its release threshold is 0, so
//! at every synchronization it hands its memory back to the driver, and the next call maps
//! fresh pages, which costs small products a large part of their time (benchmarks/TUNING.md).
//! Changing the default pool's threshold would change the application's memory behaviour; a
//! private pool changes only tilecraft's.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "../config.cuh"
#include "../util/device_cache.cuh"
#include "../util/error.cuh"

namespace tilecraft {

//! Bytes of workspace tilecraft's pool keeps on a device between calls (what it has freed
//! beyond that goes back to the driver at the next synchronization). Release it all with
//! release_workspace().
inline constexpr std::uint64_t workspace_keep_bytes = std::uint64_t{128} << 20;

namespace detail {

// `bytes` of workspace on the current device, usable on `stream` from now on in stream order;
// free it with workspace_free on the same stream. On failure (no memory pools, out of memory)
// returns the error and clears it from the runtime's last-error state, so the caller can fall
// back to a path without workspace.
inline cudaError_t workspace_alloc(void** ptr, std::size_t bytes, cudaStream_t stream) {
  *ptr = nullptr;
  int device = 0;
  cudaError_t status = cudaGetDevice(&device);
  cudaMemPool_t pool = nullptr;
  if (status == cudaSuccess) status = workspace_pool(device, pool, true, workspace_keep_bytes);
  if (status == cudaSuccess) status = cudaMallocFromPoolAsync(ptr, bytes, pool, stream);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    *ptr = nullptr;
  }
  return status;
}

// Returns workspace_alloc's memory to the pool, in stream order.
inline cudaError_t workspace_free(void* ptr, cudaStream_t stream) { return cudaFreeAsync(ptr, stream); }

}  // namespace detail

//! Hands the workspace tilecraft's pool keeps on the current device (see
//! workspace_keep_bytes) back to the driver. Call it once the work that used it has finished
//! (after a synchronization), when a phase of the application that ran GEMMs is over and the
//! memory is wanted elsewhere. cudaSuccess when there is nothing to release.
//! \code
//! TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
//! TILECRAFT_THROW_IF_ERROR(tilecraft::release_workspace());
//! \endcode
[[nodiscard]] inline cudaError_t release_workspace() {
  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  if (detail::workspace_pool(device, pool, false, workspace_keep_bytes) != cudaSuccess || pool == nullptr)
    return cudaSuccess;
  return cudaMemPoolTrimTo(pool, 0);
}

}  // namespace tilecraft
