//! \file util/error.cuh
//! Host-side error handling. Launchers return cudaError_t ([[nodiscard]]) and never exit();
//! examples and tests that prefer exceptions wrap calls in TILECRAFT_THROW_IF_ERROR (here).
//! TILECRAFT_RETURN_IF_ERROR and last_launch_error() come from util/status.cuh, included here;
//! the launchers include only that one (this header's `<stdexcept>` and `<string>` cost a
//! translation unit about a CPU second in nvcc's front end).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "../config.cuh"
#include "status.cuh"

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

}  // namespace tilecraft
