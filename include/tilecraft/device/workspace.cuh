//! \file device/workspace.cuh
//! Stream-ordered scratch memory for the device launchers that need it (the GEMM's split-K
//! slices, packed and transposed operands): a memory pool private to tilecraft, one per device,
//! that keeps between calls workspace_keep_bytes, or the most it has held (up to 1 /
//! workspace_keep_fraction of the device's memory), whichever is more (the pools live in
//! util/device_cache.cuh).
//!
//! Why not the device's default pool (plain cudaMallocAsync): its release threshold is 0, so
//! at every synchronization it hands its memory back to the driver, and the next call maps
//! fresh pages, which costs small products a large part of their time (benchmarks/TUNING.md).
//! Changing the default pool's threshold would change the application's memory behaviour; a
//! private pool changes only tilecraft's.
//!
//! Inside a CUDA graph capture a request becomes the graph's memory node from this pool, and the
//! pool's threshold is left as it is. The pool's creation (where a capture holds a launcher's
//! first request), its attributes and the requests and frees themselves run under a relaxed
//! capture mode (util/device_cache.cuh), so that neither a caller's capture of the launcher nor
//! one the caller holds open on another stream while the launcher runs is refused.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "../config.cuh"
#include "../util/device_cache.cuh"
#include "../util/status.cuh"

namespace tilecraft {

//! Bytes of workspace tilecraft's pool keeps on a device between calls at least (what it has
//! freed beyond what it keeps goes back to the driver at the next synchronization). Release it
//! all with release_workspace().
inline constexpr std::uint64_t workspace_keep_bytes = std::uint64_t{128} << 20;

//! The pool keeps what it has held at most (the largest working set of its requests), up to
//! this fraction of the device's memory:
//! a call that runs again then finds its workspace mapped instead of mapping it anew (1 GiB
//! took about 1 ms on an H200, 7% of an 8192^3 TF32x3 product; benchmarks/TUNING.md).
inline constexpr std::uint64_t workspace_keep_fraction = 16;  // 1 / 16

namespace detail {

// cudaMallocAsync and cudaFreeAsync (the device's default pool) for a launcher's temp storage.
// A stream-ordered allocation on a stream that is not capturing counts as a "potentially
// unsafe" call: while the calling thread (or any thread, in global mode) has a capture in
// cudaStreamCaptureModeGlobal open on another stream, the runtime refuses it and invalidates
// that capture (the GPU check of 95f2c58 found it for the private pool's requests;
// benchmarks/experiments/capture_calls found cudaMallocAsync and cudaMallocFromPoolAsync both
// refused there). The launcher's allocation has nothing to do with that capture, so it runs
// under a relaxed mode, and so does its free (whether the free alone would be refused, the probe
// did not settle). On a capturing stream both still become the graph's memory nodes.
inline cudaError_t stream_alloc(void** ptr, std::size_t bytes, cudaStream_t stream) {
  const RelaxedCaptureMode relaxed;
  return ::cudaMallocAsync(ptr, bytes, stream);
}
inline cudaError_t stream_free(void* ptr, cudaStream_t stream) {
  const RelaxedCaptureMode relaxed;
  return returned_status(::cudaFreeAsync(ptr, stream));
}

// Raises `pool`'s release threshold to the memory it holds now (after an allocation) where that
// is more than it keeps and at most 1 / workspace_keep_fraction of the current device's memory,
// so that the next synchronization releases none of it. Best effort: on any error the
// threshold stays, and the error is cleared.
inline void keep_workspace(cudaMemPool_t pool) {
  // A memory pool's attributes are "potentially unsafe" calls under stream capture: while any
  // thread captures in global mode they would fail here and invalidate that capture. None is a
  // stream operation, so they run under a relaxed capture mode (util/device_cache.cuh).
  const RelaxedCaptureMode relaxed;
  std::uint64_t keep = 0, held = 0;
  std::size_t free_bytes = 0, total_bytes = 0;
  cudaError_t status = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  if (status == cudaSuccess) status = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &held);
  if (status != cudaSuccess || held <= keep) {  // (held <= keep: the common case, nothing new held)
    (void)returned_status(status);
    return;
  }
  status = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (status == cudaSuccess && held <= total_bytes / workspace_keep_fraction) {
    status = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &held);
  }
  (void)returned_status(status);
}

// `bytes` of workspace on the current device, usable on `stream` from now on in stream order;
// free it with workspace_free on the same stream. On failure (no memory pools, out of memory)
// returns the error, taken out of the runtime's last-error slot where a failed call left it, so
// the caller can fall back to a path without workspace. `limit` >= 0: a request of more bytes is refused as an
// exhausted pool refuses it (cudaErrorMemoryAllocation; the launchers' tunables pass it, so that
// tests run those fallbacks).
inline cudaError_t workspace_alloc(void** ptr, std::size_t bytes, cudaStream_t stream, std::int64_t limit = -1) {
  *ptr = nullptr;
  if (limit >= 0 && bytes > static_cast<std::uint64_t>(limit)) return cudaErrorMemoryAllocation;
  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  // As it is: workspace_pool takes its runtime calls' errors out of the slot itself, and its
  // cudaErrorNotSupported (no memory pools, a device past the cache) is its own, not a failed
  // call's, so a caller's unread error of that code stays in the slot.
  if (const cudaError_t status = workspace_pool(device, pool, true, workspace_keep_bytes); status != cudaSuccess) {
    return status;
  }
  // (Relaxed: a stream-ordered allocation on a stream that is not capturing is one of the
  // runtime's "potentially unsafe" calls, refused while this thread has a global-mode capture
  // open elsewhere, and that capture invalidated; see stream_alloc.)
  cudaError_t allocated = cudaSuccess;
  {
    const RelaxedCaptureMode relaxed;
    allocated = cudaMallocFromPoolAsync(ptr, bytes, pool, stream);
  }
  if (allocated != cudaSuccess) {
    *ptr = nullptr;
    return returned_status(allocated);
  }
  // Captured into a CUDA graph, the allocation is the graph's memory (the pool holds nothing
  // more), and a capture takes no calls beyond the stream's: the threshold only outside one.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t queried = cudaStreamIsCapturing(stream, &capture);
  if (queried == cudaSuccess && capture == cudaStreamCaptureStatusNone) {
    keep_workspace(pool);
  } else {
    (void)returned_status(queried);
  }
  return cudaSuccess;
}

// Returns workspace_alloc's memory to the pool, in stream order.
inline cudaError_t workspace_free(void* ptr, cudaStream_t stream) { return stream_free(ptr, stream); }

}  // namespace detail

//! Hands the workspace tilecraft's pool keeps on the current device (see
//! workspace_keep_bytes) back to the driver, and lowers what the pool keeps from then on to
//! workspace_keep_bytes again (the most it had held no longer counts). Call it once the work
//! that used it has finished (after a synchronization), when a phase of the application that
//! ran GEMMs is over and the memory is wanted elsewhere. cudaSuccess when there is nothing to
//! release. The calling thread's capture mode is relaxed for it (detail::RelaxedCaptureMode):
//! trimming a pool is no stream operation, and must not invalidate another stream's capture in
//! global mode.
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
  std::uint64_t keep = workspace_keep_bytes;
  const detail::RelaxedCaptureMode relaxed;
  TILECRAFT_RETURN_IF_ERROR(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return detail::returned_status(cudaMemPoolTrimTo(pool, 0));
}

}  // namespace tilecraft
