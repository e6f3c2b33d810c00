// Must not compile: tilecraft::gemm<Policy> in a .cpp file. A policy's kernels are compiled where
// it is named, and a host compiler compiles none; from a .cpp file only the default policy's
// gemm() is callable (its launcher instantiated in a CUDA unit).
#include <tilecraft/device/gemm.cuh>

cudaError_t run(const float* a, const float* b, float* c) {
  return tilecraft::gemm<tilecraft::GemmPolicyMedium>(tilecraft::Order::row_major, tilecraft::Op::none,
                                                      tilecraft::Op::none, 64, 64, 64, 1.0f, a, 64, b, 64, 0.0f, c, 64);
}
