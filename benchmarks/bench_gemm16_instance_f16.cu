// tilecraft::gemm's 16-bit launcher for __half with its kernels, compiled beside bench_gemm.cu (which
// declares it extern), so the benchmark's longest unit does not also carry these kernels.
#include <tilecraft/device/gemm.cuh>

TILECRAFT_GEMM_16BIT_INSTANCE(, __half);
