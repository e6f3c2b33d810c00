// One of the device GEMM's instance units (the OBJECT library tilecraft_gemm_instances of
// cmake/TilecraftTargets.cmake), compiled once and linked into test_gemm_16bit, test_gemm_tf32,
// the benchmark binary and the gemm_ladder example, which declare these instantiations extern:
// tilecraft::gemm's float launcher in GemmMath::tf32 and tf32x3 with its kernels.
#include <tilecraft/device/gemm.cuh>

TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(, tilecraft::GemmMath::tf32x3);
