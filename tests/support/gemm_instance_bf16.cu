// One of the device GEMM's instance units (the OBJECT library tilecraft_gemm_instances of
// cmake/TilecraftTargets.cmake), compiled once and linked into test_gemm_16bit, test_gemm_tf32,
// the benchmark binary and the gemm_ladder example, which declare these instantiations extern:
// tilecraft::gemm's 16-bit launcher for __nv_bfloat16 with its kernels.
#include <tilecraft/device/gemm.cuh>

TILECRAFT_GEMM_16BIT_INSTANCE(, __nv_bfloat16);
