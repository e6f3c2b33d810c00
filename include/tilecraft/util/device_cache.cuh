//! \file util/device_cache.cuh
//! The one place where tilecraft's launchers keep what they ask of a device.
//!
//! A launcher needs the device's SM count and shared-memory limits to plan, a kernel's opt-in
//! to more than 48 KiB of dynamic shared memory, the number of blocks of a kernel an SM holds
//! (persistent grids), and a stream-ordered workspace pool. Asked on every call, the driver
//! queries would leave the GPU idle for microseconds between back-to-back launches, so each is
//! asked once per device and kept here, for the life of the process:
//!   - device_limits():        SMs, shared memory per block (opt-in) and per SM, global memory;
//!   - kernel entries:         a kernel's dynamic shared-memory opt-in (opt_in_once in
//!                             util/launch.cuh), per (kernel, device);
//!   - resident_blocks_once(): the blocks of a kernel resident on the whole device, per
//!                             (kernel, device, threads, dynamic bytes);
//!   - workspace_pool():       the device's private memory pool (device/workspace.cuh).
//! Devices 0 ... max_cached_devices - 1 are cached; a process that sees more devices is served
//! beyond that by plain queries on every call (correct, only slower), and gets no workspace
//! pool there (the launchers then take their paths without workspace). Kernels are keyed by the
//! address of the very function launched: nvcc gives every translation unit its own copy of a
//! kernel template instantiation, each registered with the runtime on its own, so each copy
//! needs its own opt-in (a cache keyed by template arguments would skip the other copies).
//! The cache is never destroyed (launchers may run from static destructors) and is not reset
//! by cudaDeviceReset(): call no tilecraft launcher on a device after resetting it. It is keyed
//! by device, not by context: the runtime's primary context of each device is assumed (a
//! driver-API context made current instead would not have the kernels' opt-ins, and a launch
//! above 48 KiB of shared memory there would fail with cudaErrorInvalidValue).
//! Thread-safe: limits are published through atomics, kernel entries under one mutex.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "../config.cuh"
#include "error.cuh"

namespace tilecraft::detail {

//! Devices whose answers are kept (device ordinals 0 ... max_cached_devices - 1).
inline constexpr int max_cached_devices = 64;

//! What the launchers plan with, for one device.
struct DeviceLimits {
  int sms = 0;                   //!< streaming multiprocessors
  int smem_per_block_optin = 0;  //!< the most shared memory a block may opt in to (bytes)
  int smem_per_sm = 0;           //!< shared memory of one SM (bytes)
  std::int64_t memory = 0;       //!< global memory (bytes)
};

struct DeviceCacheState {
  std::atomic<bool> limits_ready[max_cached_devices] = {};
  DeviceLimits limits[max_cached_devices] = {};
  std::atomic<cudaMemPool_t> pools[max_cached_devices] = {};
  std::mutex mutex;  // guards `kernels` and the creation of pools
  // (kernel, device, threads, dynamic bytes) -> resident blocks on the device (opt-in entries:
  // threads == -1, value 1).
  std::map<std::tuple<const void*, int, int, std::size_t>, int> kernels;
};

inline DeviceCacheState& device_cache() {
  static DeviceCacheState* const state = new DeviceCacheState;  // never destroyed (see the file comment)
  return *state;
}

inline bool cacheable_device(int device) { return device >= 0 && device < max_cached_devices; }

//! The limits of `device`, asked once and kept.
inline cudaError_t device_limits(int device, DeviceLimits& out) {
  DeviceCacheState& cache = device_cache();
  const bool cacheable = cacheable_device(device);
  if (cacheable && cache.limits_ready[device].load(std::memory_order_acquire)) {
    out = cache.limits[device];
    return cudaSuccess;
  }
  DeviceLimits l;
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&l.sms, cudaDevAttrMultiProcessorCount, device));
  TILECRAFT_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&l.smem_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  TILECRAFT_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&l.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  cudaDeviceProp prop{};  // (global memory has no attribute of its own; asked once per device)
  TILECRAFT_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, device));
  l.memory = static_cast<std::int64_t>(prop.totalGlobalMem);
  if (cacheable) {
    // Written once: a reader that saw the flag reads a struct nobody writes again.
    const std::lock_guard<std::mutex> lock(cache.mutex);
    if (!cache.limits_ready[device].load(std::memory_order_relaxed)) {
      cache.limits[device] = l;
      cache.limits_ready[device].store(true, std::memory_order_release);
    }
  }
  out = l;
  return cudaSuccess;
}

//! The limits of the current device.
inline cudaError_t device_limits(DeviceLimits& out) {
  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  return device_limits(device, out);
}

//! The private memory pool of `device` (created on first use when `create`, with
//! `keep_bytes` as its release threshold); null with cudaErrorNotSupported when the device has
//! no memory pools or is beyond the cached devices, null with cudaSuccess when none was
//! created yet and `create` is false.
inline cudaError_t workspace_pool(int device, cudaMemPool_t& pool, bool create, std::uint64_t keep_bytes) {
  DeviceCacheState& cache = device_cache();
  pool = nullptr;
  if (!cacheable_device(device)) return cudaErrorNotSupported;
  if ((pool = cache.pools[device].load(std::memory_order_acquire)) != nullptr || !create) return cudaSuccess;
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if ((pool = cache.pools[device].load(std::memory_order_acquire)) != nullptr) return cudaSuccess;
  int supported = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
  if (supported == 0) return cudaErrorNotSupported;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t created = nullptr;
  TILECRAFT_RETURN_IF_ERROR(cudaMemPoolCreate(&created, &props));
  const cudaError_t status = cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &keep_bytes);
  if (status != cudaSuccess) {
    (void)cudaMemPoolDestroy(created);
    return returned_status(status);
  }
  cache.pools[device].store(created, std::memory_order_release);
  pool = created;
  return cudaSuccess;
}

#if defined(__CUDACC__)

// The cached value of a kernel entry, or 0 when there is none.
inline int kernel_entry(const std::tuple<const void*, int, int, std::size_t>& key) {
  DeviceCacheState& cache = device_cache();
  const std::lock_guard<std::mutex> lock(cache.mutex);
  const auto it = cache.kernels.find(key);
  return it == cache.kernels.end() ? 0 : it->second;
}

inline void store_kernel_entry(const std::tuple<const void*, int, int, std::size_t>& key, int value) {
  DeviceCacheState& cache = device_cache();
  const std::lock_guard<std::mutex> lock(cache.mutex);
  cache.kernels[key] = value;
}

//! The blocks of `kernel` (launched with `threads` threads and `dynamic_bytes` of dynamic
//! shared memory) resident on the whole current device at once: SMs times the occupancy
//! calculator's blocks per SM, at least the SM count. Asked once per (kernel, device, threads,
//! bytes).
template <class... Args>
cudaError_t resident_blocks_once(void (*kernel)(Args...), int threads, std::size_t dynamic_bytes, int& blocks) {
  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), device, threads, dynamic_bytes);
  if (cacheable_device(device) && (blocks = kernel_entry(key)) != 0) return cudaSuccess;
  DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(device_limits(device, limits));
  int per_sm = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_bytes));
  blocks = limits.sms * (per_sm > 0 ? per_sm : 1);
  if (cacheable_device(device)) store_kernel_entry(key, blocks);
  return cudaSuccess;
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
