//! \file util/error.cuh
//! Host-side error handling. Launchers return cudaError_t ([[nodiscard]]) and never exit();
//! examples and tests that prefer exceptions wrap calls in TILECRAFT_THROW_IF_ERROR.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

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

//! Evaluates the expression (a cudaError_t) once and throws tilecraft::CudaError, naming the call and
//! its source location, if it failed. Meant for examples and tests, not for library code.
#define TILECRAFT_THROW_IF_ERROR(...) ::tilecraft::throw_if_error((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)

namespace tilecraft {

//! Exception carrying a CUDA status code; thrown only by TILECRAFT_THROW_IF_ERROR.
class CudaError : public std::runtime_error {
 public:
  //! An error with status `code` and message `what`.
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  //! The CUDA status that failed.
  [[nodiscard]] cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

//! Throws CudaError if `status` is not cudaSuccess; the message names the failing expression.
inline void throw_if_error(cudaError_t status, const char* expr, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw CudaError(status, std::string(file) + ":" + std::to_string(line) + ": " + expr +
                              " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

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
