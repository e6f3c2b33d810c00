// tilecraft::gemm's float launcher in GemmMath::tf32 and tf32x3 with its kernels, compiled beside
// test_gemm_tf32.cu (which declares them extern), so the test's compilation runs in parallel.
#include <tilecraft/device/gemm.cuh>

TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32x3);
