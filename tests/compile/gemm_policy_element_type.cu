#include <tilecraft/device/gemm.cuh>
// A GemmPolicy serves the matrices of its element type: the float default is refused for doubles.
cudaError_t run(const double* a, const double* b, double* c) {
  return tilecraft::gemm<tilecraft::GemmPolicyLarge>(tilecraft::Order::row_major, tilecraft::Op::none,
                                                     tilecraft::Op::none, 8, 8, 8, 1.0, a, 8, b, 8, 0.0, c, 8);
}
