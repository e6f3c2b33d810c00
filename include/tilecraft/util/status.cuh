//! \file util/status.cuh
//! Host-side status handling for the launchers: they return cudaError_t ([[nodiscard]]) and
//! never exit(); TILECRAFT_RETURN_IF_ERROR composes their CUDA calls. Light on purpose (none of
//! the standard library's heavier headers): every launcher includes it. The throwing helper
//! for examples and tests, TILECRAFT_THROW_IF_ERROR, is in util/error.cuh, which includes it.
#pragma once

#include <cuda_runtime_api.h>

#include "../config.cuh"

//! Evaluates the expression (a cudaError_t) once; if it is not cudaSuccess, returns it from the
//! enclosing function, taking it out of the runtime's last-error slot where the failed runtime
//! call left it there (detail::returned_status): the error is reported once, as that function's
//! result. For launchers that compose several CUDA calls.
//! \code
//! cudaError_t copy_then_clear(float* dst, float* src, std::size_t bytes, cudaStream_t stream) {
//!   TILECRAFT_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
//!   TILECRAFT_RETURN_IF_ERROR(cudaMemsetAsync(src, 0, bytes, stream));
//!   return cudaSuccess;
//! }
//! \endcode
#define TILECRAFT_RETURN_IF_ERROR(...)                                \
  do {                                                                \
    const cudaError_t tilecraft_status_ = (__VA_ARGS__);              \
    if (tilecraft_status_ != cudaSuccess) {                           \
      return ::tilecraft::detail::returned_status(tilecraft_status_); \
    }                                                                 \
  } while (0)

namespace tilecraft {

//! The runtime's last error on this host thread, cleared (cudaGetLastError): right after a
//! `<<<...>>>` launch, that launch's status, unless an earlier runtime call's error was left
//! there unread (it is then reported instead). For kernels launched with `<<<...>>>` in user
//! code; tilecraft's launchers return each launch's own status (cudaLaunchKernelEx) instead.
[[nodiscard]] inline cudaError_t last_launch_error() noexcept { return cudaGetLastError(); }

namespace detail {
//! `status`, the result of a call that a launcher returns as its own, with the runtime's
//! last-error slot cleared where it holds that very error (a failed runtime call leaves it
//! there): reported once, as the launcher's result. A different error an earlier call left in
//! the slot stays there for its owner. (The slot cannot tell the same code an earlier call left
//! from one tilecraft's own checks made up: the launchers return their argument checks' errors
//! without this, so that an earlier cudaErrorInvalidValue stays too.)
[[nodiscard]] inline cudaError_t returned_status(cudaError_t status) noexcept {
  if (status != cudaSuccess && cudaPeekAtLastError() == status) (void)cudaGetLastError();
  return status;
}
}  // namespace detail

}  // namespace tilecraft
