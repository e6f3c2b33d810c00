//! \file gemm/gemm_math.cuh
//! How a GEMM multiplies: on the FP32 / FP64 pipes or on the tensor cores, and how accurately.
#pragma once

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tilecraft {

//! The math of a GEMM's multiply-adds, a compile-time choice (TiledGemm's last parameter).
enum class GemmMath {
  //! Fused multiply-adds on the FP32 or FP64 pipes (SIMT): BLAS's rounding. The default for
  //! float and double.
  simt,
  //! float operands: one TF32 tensor-core MMA per product (operands rounded to 10 explicit
  //! mantissa bits, FP32 accumulation): relative error about 2^-11 per product.
  tf32,
  //! float operands: three TF32 MMAs on operands split into a TF32 big part and a TF32
  //! remainder: FP32 accumulation from the tensor cores.
  tf32x3,
  //! __half or __nv_bfloat16 operands: m16n8k16 tensor-core MMAs in the operands' own
  //! precision (every product exact), FP32 accumulators, and a C of float or of the operands'
  //! type. The default, and the only math, for 16-bit operands.
  mma16,
};

//! True for the 16-bit operand types of GemmMath::mma16: __half and __nv_bfloat16.
template <class T>
inline constexpr bool is_gemm_16bit_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

//! The math a GEMM of element type T takes when none is named: mma16 for __half and
//! __nv_bfloat16, simt otherwise.
template <class T>
inline constexpr GemmMath default_gemm_math_v = is_gemm_16bit_v<T> ? GemmMath::mma16 : GemmMath::simt;

//! The type of C and of the accumulators of a GEMM whose A and B hold T: float for the 16-bit
//! types, T itself otherwise.
template <class T>
using gemm_output_t = std::conditional_t<is_gemm_16bit_v<T>, float, T>;

}  // namespace tilecraft
