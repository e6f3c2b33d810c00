//! \file util/nvtx.cuh
//! NVTX ranges around tilecraft's host launchers, as CCCL's device algorithms have: Nsight
//! Systems then shows "tilecraft::reduce" and friends on the timeline around their kernels.
//! Define TILECRAFT_DISABLE_NVTX to compile them out; they are also off when the toolkit's NVTX 3
//! headers cannot be found. With no profiler attached a range costs a few nanoseconds.
#pragma once

#include "../config.cuh"

#if !defined(TILECRAFT_DISABLE_NVTX) && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>

namespace tilecraft::detail {
// Pushes a named NVTX range for the lifetime of the object.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) noexcept { nvtxRangePushA(name); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
  ~NvtxRange() { nvtxRangePop(); }
};
}  // namespace tilecraft::detail

//! Opens an NVTX range named `name` (a string literal) until the end of the enclosing scope.
#define TILECRAFT_NVTX_RANGE(name) const ::tilecraft::detail::NvtxRange tilecraft_nvtx_range_(name)
#else
//! Opens an NVTX range named `name` (a string literal) until the end of the enclosing scope.
#define TILECRAFT_NVTX_RANGE(name) ((void)0)
#endif
