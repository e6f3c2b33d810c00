// The device GEMM's instance units as one translation unit (tilecraft_gemm_instances with
// TILECRAFT_MERGED_UNITS, the ci preset): the launchers for float and double (default policy),
// TF32 / TF32x3, __nv_bfloat16 and __half with their kernels.
#include "gemm_instance_bf16.cu"
#include "gemm_instance_f16.cu"
#include "gemm_instance_f32.cu"
#include "gemm_instance_f64.cu"
#include "gemm_instance_tf32.cu"
