//! \file util/launch.cuh
//! Launch-time checks for kernels that use more shared memory than a block gets by default.
//!
//! A block may use at most 48 KiB of *static* `__shared__` memory on every architecture. More
//! must be dynamic shared memory (`extern __shared__`, sized at launch), and above 48 KiB each
//! kernel must opt in with cudaFuncSetAttribute, up to the device's limit: sm_75 64 KiB,
//! sm_80 163 KiB, sm_86/sm_89 99 KiB, sm_90 227 KiB (max_smem_per_block_optin). Without the
//! opt-in the launch fails with cudaErrorInvalidValue, far from the cause; with too many bytes
//! it fails too. opt_in_dynamic_smem checks both before anything is launched.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "../config.cuh"
#include "device_cache.cuh"
#include "status.cuh"

namespace tilecraft {

//! The most shared memory (static + dynamic, bytes) one block may use on compute capability
//! major.minor after opting in (the CUDA programming guide's table; what
//! cudaDevAttrMaxSharedMemoryPerBlockOptin reports on such a device); 0 for a compute
//! capability the table does not hold (ask the device instead).
constexpr std::size_t max_smem_per_block_optin(int major, int minor) {
  constexpr std::size_t kib = 1024;
  if (major == 7 && minor == 5) return 64 * kib;
  if (major == 8 && (minor == 0 || minor == 7)) return 163 * kib;
  if (major == 8 && (minor == 6 || minor == 9)) return 99 * kib;
  if (major == 9 && minor == 0) return 227 * kib;
  if (major == 10) return 227 * kib;
  if (major == 12) return 99 * kib;
  return 0;
}

#if defined(__CUDACC__)
//! Prepares `kernel` for launches with `dynamic_bytes` of dynamic shared memory on the current
//! device: returns cudaErrorInvalidValue when dynamic_bytes plus the kernel's static shared
//! memory exceeds what a block of this device may opt in to; otherwise raises the kernel's
//! cudaFuncAttributeMaxDynamicSharedMemorySize to dynamic_bytes when that is above the kernel's
//! present limit (by default 48 KiB less its static shared memory, so a kernel with 40 KiB of
//! static shared memory needs the opt-in from 8 KiB of dynamic on; idempotent, cheap enough to
//! call before every launch) and returns its status.
//! Opt in the very pointer you launch: every translation unit (.cu file) has its own copy of a
//! kernel, registered on its own, so a cache of "already opted in" keyed by the kernel's
//! template arguments (one variable for all translation units) leaves the other copies out.
//! \code
//! using Smem = tilecraft::SharedCarve<TileA, TileB>;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::opt_in_dynamic_smem(my_kernel, Smem::bytes));
//! my_kernel<<<grid, block, Smem::bytes, stream>>>(args);
//! \endcode
template <class... Args>
[[nodiscard]] cudaError_t opt_in_dynamic_smem(void (*kernel)(Args...), std::size_t dynamic_bytes) {
  detail::DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(detail::device_limits(limits));  // (asked once per device)
  const int optin = limits.smem_per_block_optin;
  cudaFuncAttributes attributes{};
  TILECRAFT_RETURN_IF_ERROR(cudaFuncGetAttributes(&attributes, kernel));
  if (dynamic_bytes + attributes.sharedSizeBytes > static_cast<std::size_t>(optin)) return cudaErrorInvalidValue;
  if (dynamic_bytes <= static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes)) return cudaSuccess;
  return detail::returned_status(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_bytes)));
}

namespace detail {
//! opt_in_dynamic_smem(kernel, bytes) once per (kernel, current device), remembered in the
//! device cache (util/device_cache.cuh): a launcher calls it before every launch. A kernel is
//! launched with one dynamic size only (the one its launcher computes at compile time).
template <class... Args>
cudaError_t opt_in_once(void (*kernel)(Args...), std::size_t bytes) {
  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  const KernelKey key{reinterpret_cast<const void*>(kernel), device, -1, bytes};
  if (cacheable_device(device) && kernel_entry(key) != 0) return cudaSuccess;
  // (opt_in_dynamic_smem takes its runtime errors out of the last-error slot itself; its own
  // refusal is returned as it is, so that a caller's earlier error of that code stays there.)
  if (const cudaError_t status = opt_in_dynamic_smem(kernel, bytes); status != cudaSuccess) return status;
  if (cacheable_device(device)) store_kernel_entry(key, 1);
  return cudaSuccess;
}

//! Whether `kernel`, as the current device runs it, was compiled for sm_90 or later (its PTX
//! and its code): only then does it execute griddepcontrol.wait, and only then may it be
//! launched as a programmatic dependent of the kernel before it. (sm_80 PTX JIT-compiled for an
//! H100 has no wait: launched early it would read state not yet written.) Asked once per
//! kernel and device, kept in the device cache.
inline bool waits_for_dependency(const void* kernel) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  const KernelKey key{kernel, device, -3, 0};
  const bool cacheable = cacheable_device(device);
  if (cacheable) {
    const int known = kernel_entry(key);
    if (known != 0) return known == 2;
  }
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  const bool waits = status == cudaSuccess && attributes.ptxVersion >= 90 && attributes.binaryVersion >= 90;
  // A failed query answers "no" (an ordinary launch follows, and its own check reports what
  // fails there) this time only: the cache keeps answers, not failures (a transient one would
  // otherwise hold the kernel off its early launch for the process's life); only its own error
  // is taken out of the runtime's slot, not one the caller left there.
  (void)returned_status(status);
  if (cacheable && status == cudaSuccess) store_kernel_entry(key, waits ? 2 : 1);
  return waits;
}

//! A launch's configuration without attributes.
inline cudaLaunchConfig_t launch_config(dim3 grid, dim3 block, std::size_t smem_bytes, cudaStream_t stream) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  return config;
}

//! cudaLaunchKernelEx of kernel<<<grid, block, smem_bytes, stream>>>(args...) with `attribute`
//! (none where null): launch_kernel's, launch_dependent's and launch_cooperative's one form.
template <class... Params, class... Args>
[[nodiscard]] cudaError_t launch_with(cudaLaunchAttribute* attribute, void (*kernel)(Params...), dim3 grid, dim3 block,
                                      std::size_t smem_bytes, cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config = launch_config(grid, block, smem_bytes, stream);
  config.attrs = attribute;
  config.numAttrs = attribute != nullptr ? 1 : 0;
  return returned_status(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

//! Launches kernel<<<grid, block, smem_bytes, stream>>>(args...) (cudaLaunchKernelEx) and
//! returns the launch's own status. Every launcher launches this way (or, for a grid barrier,
//! with launch_cooperative, below, whose result is its own too): a check of the runtime's
//! last-error slot after `<<<...>>>` would also report, as the launch's, an error an earlier
//! runtime call left there (one its caller may have handled by that call's return code), and
//! clear it. Only a failed launch's own error is taken out of the slot (returned_status).
template <class... Params, class... Args>
[[nodiscard]] cudaError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem_bytes,
                                        cudaStream_t stream, Args&&... args) {
  return launch_with(nullptr, kernel, grid, block, smem_bytes, stream, std::forward<Args>(args)...);
}

//! Launches kernel<<<grid, block, smem_bytes, stream>>>(args...) as a programmatic dependent of
//! the work before it in `stream` (cudaLaunchAttributeProgrammaticStreamSerialization): its
//! blocks may start once every block of the kernel before it has executed
//! arch::launch_dependents, and must call arch::wait_for_dependencies before they touch what
//! that kernel writes. Only for kernels that wait (waits_for_dependency). Returns the launch's
//! status (and, as last_launch_error does, leaves no launch error behind for the caller's next
//! cudaGetLastError).
template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem_bytes,
                             cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  return launch_with(&attribute, kernel, grid, block, smem_bytes, stream, std::forward<Args>(args)...);
}

//! Launches kernel<<<grid, block, smem_bytes, stream>>>(args...) as a cooperative grid
//! (cudaLaunchAttributeCooperative, cudaLaunchCooperativeKernel's semantics: every block
//! resident at once, or the launch fails with cudaErrorCooperativeLaunchTooLarge), so that its
//! blocks may meet at arch::grid_sync. Returns the launch's own status, as launch_kernel does.
template <class... Params, class... Args>
[[nodiscard]] cudaError_t launch_cooperative(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem_bytes,
                                             cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  return launch_with(&attribute, kernel, grid, block, smem_bytes, stream, std::forward<Args>(args)...);
}

//! Whether launch_cooperative's status says the launch was refused before it ran: the grid does
//! not fit the blocks this process may hold at once (a GPU that gives it fewer SMs than it
//! reports, under MPS or green contexts) or the device has no cooperative launches. The
//! launchers then take a form without a grid barrier. (A refusal that a stream capture defers to
//! the graph's instantiation fails there.)
constexpr bool cooperative_refused(cudaError_t status) {
  return status == cudaErrorCooperativeLaunchTooLarge || status == cudaErrorNotSupported;
}
}  // namespace detail
#endif

}  // namespace tilecraft
