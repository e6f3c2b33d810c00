// The launchers of gemm_ladder's rungs 9-11 (tilecraft::gemm on TF32, TF32x3 and BF16 operands)
// with their kernels, compiled beside gemm_ladder.cu (which declares them extern).
#include <tilecraft/device/gemm.cuh>

TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32x3);
TILECRAFT_GEMM_16BIT_INSTANCE(, __nv_bfloat16);
