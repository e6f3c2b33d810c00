// tilecraft::gemm's 16-bit launcher for __half with its kernels, compiled beside test_gemm_16bit.cu
// (which declares it extern), so the two halves of the test's compilation run in parallel.
#include <tilecraft/device/gemm.cuh>

TILECRAFT_GEMM_16BIT_INSTANCE(, __half);
