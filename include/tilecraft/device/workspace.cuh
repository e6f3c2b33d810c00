//! \file device/workspace.cuh
//! Stream-ordered scratch memory for the device launchers that need it (the GEMM's split-K
//! slices and packed operands): a memory pool private to tilecraft, one per device, that keeps
//! up to workspace_keep_bytes between calls.
//!
//! Why not the device's default pool (plain cudaMallocAsync): its release threshold is 0, so
//! at every synchronization it hands its memory back to the driver, and the next call maps
//! fresh pages. Measured on the H200 with the benchmarks' synchronization between samples,
//! that cost 1024^3 a quarter of its speed (0.90 -> 0.66 of cuBLAS). Changing the default
//! pool's threshold would change the application's memory behaviour; a private pool changes
//! only tilecraft's.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "../config.cuh"
#include "../util/error.cuh"

namespace tilecraft {

//! Bytes of workspace tilecraft's pool keeps on a device between calls (what it has freed
//! beyond that goes back to the driver at the next synchronization). Release it all with
//! release_workspace().
inline constexpr std::uint64_t workspace_keep_bytes = std::uint64_t{128} << 20;

namespace detail {

inline constexpr int workspace_devices = 64;

// The pool of `device` (created on first use; null when the device has no memory pools).
inline cudaError_t workspace_pool(int device, cudaMemPool_t& pool, bool create) {
  static std::atomic<cudaMemPool_t> pools[workspace_devices] = {};
  static std::mutex creating;
  pool = nullptr;
  if (device < 0 || device >= workspace_devices) return cudaErrorNotSupported;
  if ((pool = pools[device].load()) != nullptr || !create) return cudaSuccess;
  const std::lock_guard<std::mutex> lock(creating);
  if ((pool = pools[device].load()) != nullptr) return cudaSuccess;
  int supported = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
  if (supported == 0) return cudaErrorNotSupported;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t created = nullptr;
  TILECRAFT_RETURN_IF_ERROR(cudaMemPoolCreate(&created, &props));
  std::uint64_t keep = workspace_keep_bytes;
  const cudaError_t status = cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &keep);
  if (status != cudaSuccess) {
    (void)cudaMemPoolDestroy(created);
    return status;
  }
  pools[device].store(created);
  pool = created;
  return cudaSuccess;
}

// `bytes` of workspace on the current device, usable on `stream` from now on in stream order;
// free it with workspace_free on the same stream. On failure (no memory pools, out of memory)
// returns the error and clears it from the runtime's last-error state, so the caller can fall
// back to a path without workspace.
inline cudaError_t workspace_alloc(void** ptr, std::size_t bytes, cudaStream_t stream) {
  *ptr = nullptr;
  int device = 0;
  cudaError_t status = cudaGetDevice(&device);
  cudaMemPool_t pool = nullptr;
  if (status == cudaSuccess) status = workspace_pool(device, pool, true);
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
  if (detail::workspace_pool(device, pool, false) != cudaSuccess || pool == nullptr) return cudaSuccess;
  return cudaMemPoolTrimTo(pool, 0);
}

}  // namespace tilecraft
