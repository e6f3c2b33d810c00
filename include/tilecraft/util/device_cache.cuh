//! \file util/device_cache.cuh
//! The one place where tilecraft's launchers keep what they ask of a device.
//!
//! A launcher needs the device's SM count and shared-memory limits to plan, a kernel's opt-in
//! to more than 48 KiB of dynamic shared memory, the number of blocks of a kernel an SM holds
//! (persistent grids), and a stream-ordered workspace pool. Asked on every call, the driver
//! queries would leave the GPU idle for microseconds between back-to-back launches, so each is
//! asked once per device and kept here, for the life of the process:
//!   - device_limits():        SMs, shared memory per block (opt-in) and per SM, global memory, L2;
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
//! Thread-safe without locks: each entry (a device's limits, its pool, a kernel entry) is
//! claimed by one writer with a compare-and-swap and published with a release store; a reader
//! that meets an entry still being written asks the driver itself. Kernel entries live in a
//! fixed table (kernel_entry_slots, linearly probed); one that finds no free slot near its key
//! is not kept (correct, only slower). A pool created by two threads at once is kept once (the
//! other goes back to the driver). No `<atomic>`, `<mutex>` or `<map>`: those headers cost every
//! translation unit that includes a launcher 2 to 4 CPU s in nvcc's front-end passes (the
//! host's and each architecture's; benchmarks/TUNING.md), so the atomics are the compilers'
//! builtins (std::atomic_ref where those are missing).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "../config.cuh"
#include "status.cuh"

#if !defined(__GNUC__) && !defined(__clang__)
#include <atomic>
#endif

namespace tilecraft::detail {

//! Devices whose answers are kept (device ordinals 0 ... max_cached_devices - 1).
inline constexpr int max_cached_devices = 64;
//! Kernel entries kept (a power of two), and how far from its key's slot an entry may lie.
inline constexpr int kernel_entry_slots = 4096;
inline constexpr int kernel_entry_probes = 64;

// Host atomics on plain objects (sequences of claim, write, publish).
template <class T>
T atomic_load_acquire(const T& x) {
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n(&x, __ATOMIC_ACQUIRE);
#else
  return std::atomic_ref<T>(const_cast<T&>(x)).load(std::memory_order_acquire);
#endif
}

template <class T>
void atomic_store_release(T& x, T value) {
#if defined(__GNUC__) || defined(__clang__)
  __atomic_store_n(&x, value, __ATOMIC_RELEASE);
#else
  std::atomic_ref<T>(x).store(value, std::memory_order_release);
#endif
}

// Replaces x by `desired` if it holds `expected` (true); else loads it into `expected` (false).
template <class T>
bool atomic_compare_exchange(T& x, T& expected, T desired) {
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_compare_exchange_n(&x, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
#else
  return std::atomic_ref<T>(x).compare_exchange_strong(expected, desired, std::memory_order_acq_rel,
                                                       std::memory_order_acquire);
#endif
}

//! What the launchers plan with, for one device.
struct DeviceLimits {
  int sms = 0;                   //!< streaming multiprocessors
  int smem_per_block_optin = 0;  //!< the most shared memory a block may opt in to (bytes)
  int smem_per_sm = 0;           //!< shared memory of one SM (bytes)
  std::int64_t memory = 0;       //!< global memory (bytes)
  std::int64_t l2 = 0;           //!< L2 cache (bytes)
};

//! A kernel entry's key: the kernel launched, the device, its threads (or a negative tag:
//! -1 the opt-in, -2 the wgmma probe, -3 the dependent-launch check) and dynamic bytes.
struct KernelKey {
  const void* kernel = nullptr;
  int device = 0;
  int threads = 0;
  std::size_t bytes = 0;
  bool operator==(const KernelKey&) const = default;
};

// An entry's state: empty, claimed by a writer, published.
inline constexpr int entry_empty = 0;
inline constexpr int entry_claimed = 1;
inline constexpr int entry_ready = 2;

struct KernelEntry {
  int state;
  int value;
  KernelKey key;
};

struct DeviceCacheState {
  int limits_state[max_cached_devices];
  DeviceLimits limits[max_cached_devices];
  cudaMemPool_t pools[max_cached_devices];
  KernelEntry kernels[kernel_entry_slots];
};

inline DeviceCacheState& device_cache() {
  // Zero-initialized, never destroyed (see the file comment).
  static DeviceCacheState* const state = new DeviceCacheState{};
  return *state;
}

inline bool cacheable_device(int device) { return device >= 0 && device < max_cached_devices; }

//! The limits of `device`, asked once and kept.
inline cudaError_t device_limits(int device, DeviceLimits& out) {
  DeviceCacheState& cache = device_cache();
  const bool cacheable = cacheable_device(device);
  if (cacheable && atomic_load_acquire(cache.limits_state[device]) == entry_ready) {
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
  l.l2 = prop.l2CacheSize;
  int empty = entry_empty;
  if (cacheable && atomic_compare_exchange(cache.limits_state[device], empty, entry_claimed)) {
    // Written once, by the one writer that claimed it: a reader that sees it published reads a
    // struct nobody writes again.
    cache.limits[device] = l;
    atomic_store_release(cache.limits_state[device], entry_ready);
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

//! While it lives, the calling thread's stream-capture mode is relaxed: a call that the runtime
//! counts as potentially unsafe (a memory pool's creation, its attributes read or set, a
//! stream-ordered allocation on a stream that is not capturing) is then permitted where the
//! thread's own or another thread's capture in cudaStreamCaptureModeGlobal would refuse it and
//! invalidate that capture (cudaErrorStreamCaptureUnsupported: a launcher's first call inside a
//! caller's capture, or a call on another stream beside it). The CUDA runtime documents
//! cudaThreadExchangeStreamCaptureMode for this, a library's lazy initialization; the mode
//! before is restored on destruction. Work on a capturing stream is captured as before.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() noexcept {
    exchanged_ = returned_status(cudaThreadExchangeStreamCaptureMode(&mode_)) == cudaSuccess;
  }
  ~RelaxedCaptureMode() {
    if (exchanged_) (void)returned_status(cudaThreadExchangeStreamCaptureMode(&mode_));
  }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;  // (after the exchange: the mode before)
  bool exchanged_ = false;
};

//! The private memory pool of `device` (created on first use when `create`, with
//! `keep_bytes` as its release threshold); null with cudaErrorNotSupported when the device has
//! no memory pools or is beyond the cached devices, null with cudaSuccess when none was
//! created yet and `create` is false.
inline cudaError_t workspace_pool(int device, cudaMemPool_t& pool, bool create, std::uint64_t keep_bytes) {
  DeviceCacheState& cache = device_cache();
  pool = nullptr;
  if (!cacheable_device(device)) return cudaErrorNotSupported;
  if ((pool = atomic_load_acquire(cache.pools[device])) != nullptr || !create) return cudaSuccess;
  int supported = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
  if (supported == 0) return cudaErrorNotSupported;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t created = nullptr;
  // (The pool's creation, and its destruction when it is not published, are not stream
  // operations: permitted inside a caller's capture, RelaxedCaptureMode.)
  const RelaxedCaptureMode relaxed;
  cudaError_t status = cudaMemPoolCreate(&created, &props);
  if (status == cudaSuccess) {
    status = cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &keep_bytes);
    if (status != cudaSuccess) (void)returned_status(cudaMemPoolDestroy(created));
  }
  if (status != cudaSuccess) {
    // A pool another thread published meanwhile serves; this call's error leaves the slot.
    (void)returned_status(status);
    if ((pool = atomic_load_acquire(cache.pools[device])) != nullptr) return cudaSuccess;
    return status;
  }
  cudaMemPool_t published = nullptr;
  if (!atomic_compare_exchange(cache.pools[device], published, created)) {
    // Another thread's pool was published first: that one is the device's, this one (unused)
    // goes back.
    (void)returned_status(cudaMemPoolDestroy(created));
    pool = published;
    return cudaSuccess;
  }
  pool = created;
  return cudaSuccess;
}

// The slot where the probe for `key` starts: every bit of every field mixed (splitmix64's
// finalizer after each), so that keys that differ in any field start apart.
inline unsigned kernel_entry_home(const KernelKey& key) {
  auto mix = [](std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  std::uint64_t h = mix(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key.kernel)));
  h = mix(h ^ (static_cast<std::uint64_t>(static_cast<unsigned>(key.device)) |
               static_cast<std::uint64_t>(static_cast<unsigned>(key.threads)) << 32));
  h = mix(h ^ static_cast<std::uint64_t>(key.bytes));
  return static_cast<unsigned>(h);
}

// The published value of a kernel entry, or 0 when there is none.
inline int kernel_entry(const KernelKey& key) {
  DeviceCacheState& cache = device_cache();
  const unsigned home = kernel_entry_home(key);
  for (int probe = 0; probe < kernel_entry_probes; ++probe) {
    const KernelEntry& e = cache.kernels[(home + static_cast<unsigned>(probe)) % kernel_entry_slots];
    const int state = atomic_load_acquire(e.state);
    if (state == entry_empty) return 0;
    if (state == entry_ready && e.key == key) return e.value;
  }
  return 0;
}

// Publishes a kernel entry (one that is there already stays: its value is the same).
inline void store_kernel_entry(const KernelKey& key, int value) {
  DeviceCacheState& cache = device_cache();
  const unsigned home = kernel_entry_home(key);
  for (int probe = 0; probe < kernel_entry_probes; ++probe) {
    KernelEntry& e = cache.kernels[(home + static_cast<unsigned>(probe)) % kernel_entry_slots];
    int state = entry_empty;
    if (atomic_compare_exchange(e.state, state, entry_claimed)) {
      e.key = key;
      e.value = value;
      atomic_store_release(e.state, entry_ready);
      return;
    }
    if (state == entry_ready && e.key == key) return;
  }
}

#if defined(__CUDACC__)

//! The blocks of `kernel` (launched with `threads` threads and `dynamic_bytes` of dynamic
//! shared memory) resident on the whole current device at once: SMs times the occupancy
//! calculator's blocks per SM, at least the SM count. Asked once per (kernel, device, threads,
//! bytes).
template <class... Args>
cudaError_t resident_blocks_once(void (*kernel)(Args...), int threads, std::size_t dynamic_bytes, int& blocks) {
  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  const KernelKey key{reinterpret_cast<const void*>(kernel), device, threads, dynamic_bytes};
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
