//! \file gemm/gemm_math.cuh
//! How a float GEMM multiplies: on the FP32 pipes or on the tensor cores, and how accurately.
#pragma once

namespace tilecraft {

//! The math of a float GEMM's multiply-adds, a compile-time choice.
enum class GemmMath {
  //! FP32 fused multiply-adds (SIMT): BLAS's FP32 rounding. The default.
  simt,
  //! One TF32 tensor-core MMA per product (operands rounded to 10 explicit mantissa bits,
  //! FP32 accumulation): relative error about 2^-11 per product.
  tf32,
  //! Three TF32 MMAs on operands split into a TF32 big part and a TF32 remainder: FP32
  //! accuracy from the tensor cores.
  tf32x3,
};

}  // namespace tilecraft
