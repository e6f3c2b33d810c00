// One of the device GEMM's instance units (the OBJECT library tilecraft_gemm_instances of
// cmake/TilecraftTargets.cmake), compiled once and linked into the benchmark binary and the
// gemm_ladder example, which declare these instantiations extern: tilecraft::gemm's
// float launcher (default policy) with its kernels.
#include <tilecraft/device/gemm.cuh>

TILECRAFT_GEMM_INSTANCE(, float);
