// tilecraft::gemm's float launcher in GemmMath::tf32 and tf32x3 with its kernels, compiled beside
// bench_gemm.cu (which declares them extern), so the benchmark's longest unit does not also carry
// these kernels.
#include <tilecraft/device/gemm.cuh>

TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32x3);
