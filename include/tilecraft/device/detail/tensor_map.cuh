//! \file device/detail/tensor_map.cuh
//! Host side of the TMA copies (arch/tma.cuh): the driver's tensor-map encoder, found once
//! through the runtime (no link to the driver library), and the 2-D maps tilecraft's kernels
//! read their operands through.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/status.cuh"

namespace tilecraft::detail {

//! cuTensorMapEncodeTiled's signature (CUDA 12.0 on).
using TensorMapEncoder = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                      const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                      CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

//! The driver's cuTensorMapEncodeTiled, or null where the driver has none; asked once per
//! process (thread-safe), leaving no error behind for the launches that follow.
inline TensorMapEncoder tensor_map_encoder() {
  static const TensorMapEncoder encoder = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t status =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
    if (status != cudaSuccess || found != cudaDriverEntryPointSuccess) {
      (void)returned_status(status);
      return static_cast<TensorMapEncoder>(nullptr);
    }
    return reinterpret_cast<TensorMapEncoder>(fn);
  }();
  return encoder;
}

template <class T>
inline constexpr CUtensorMapDataType tensor_map_type = std::is_same_v<T, float>
                                                           ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                                           : (std::is_same_v<T, __half>
                                                                  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                                  : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);

//! Whether rows `ld` elements of T apart are within TMA's stride limit (below 2^40 bytes).
template <class T>
constexpr bool tma_row_stride_fits(std::int64_t ld) {
  return ld < (std::int64_t{1} << 40) / static_cast<std::int64_t>(sizeof(T));
}

//! Whether rows of T at p, `ld` elements apart, do not all start 32-byte aligned. Where they
//! start 16-byte aligned (TMA's rule), such rows start 16 bytes off a 32-byte boundary every
//! other row at least, and TMA moved them at about half its rate on the H200; the GEMM
//! launchers copy some of them into 128-byte aligned rows (benchmarks/TUNING.md).
template <class T>
bool rows_off_32_bytes(const T* p, std::int64_t ld) {
  static_assert(32 % sizeof(T) == 0, "rows_off_32_bytes: sizeof(T) must divide 32");
  return reinterpret_cast<std::uintptr_t>(p) % 32 != 0 || ld % (32 / static_cast<std::int64_t>(sizeof(T))) != 0;
}

//! Whether TMA can read `outer` rows of `inner` elements of T at `base`, `ld` elements apart,
//! with 32-bit box coordinates: base 16-byte aligned, rows a multiple of 16 bytes apart (and
//! below 2^40 bytes), both extents in 1 ... 2^31 - 1.
template <class T>
bool tensor_map_fits(const T* base, std::int64_t inner, std::int64_t outer, std::int64_t ld) {
  constexpr std::int64_t max_extent = 2147483647;
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && inner >= 1 && outer >= 1 && inner <= max_extent &&
         outer <= max_extent && ld >= inner && (ld * static_cast<std::int64_t>(sizeof(T))) % 16 == 0 &&
         tma_row_stride_fits<T>(ld);
}

//! Encodes `map` for the 2-D tensor of T (float, __half or __nv_bfloat16) at `base`: `outer`
//! rows of `inner` contiguous elements, `ld` elements apart, copied in boxes of `box_inner`
//! (128 bytes: the 128-byte swizzle's row) x `box_outer` elements, laid out in shared memory in
//! the 128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r % 8)), zeros outside the
//! tensor. Returns cudaErrorInvalidValue when the tensor does not fit TMA (tensor_map_fits) or
//! the driver refuses the map, cudaErrorNotSupported when the driver has no encoder.
template <class T>
cudaError_t encode_tensor_map_2d(CUtensorMap& map, const T* base, std::int64_t inner, std::int64_t outer,
                                 std::int64_t ld, int box_inner, int box_outer) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                "encode_tensor_map_2d: T must be float, __half or __nv_bfloat16");
  if (!tensor_map_fits(base, inner, outer, ld) || box_inner * static_cast<int>(sizeof(T)) != 128 || box_outer < 1 ||
      box_outer > 256) {
    return cudaErrorInvalidValue;
  }
  const TensorMapEncoder encode = tensor_map_encoder();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(T)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_inner), static_cast<cuuint32_t>(box_outer)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(&map, tensor_map_type<T>, 2, const_cast<T*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace tilecraft::detail
