// One variant of the library's default FP32 gemm behind a plain function FN (run.sh builds it
// once per variant, each with -Dtilecraft=tc_<variant>, so all link into one binary). Row-major
// A (M x K), B (K x N) and C, alpha 1, beta 0.
//   default:      the launcher as it is (the headers given by -I).
//   -DTC_COPY_B:  B first copied by the launcher's own row copy (detail::copy_rows) to rows of
//                 whole 16-byte vectors (ld rounded up to 4), then the default gemm on that copy:
//                 what a "copy the unaligned operand alone" plan would run (the copy's buffer is
//                 allocated once, outside the timing, as the launcher's workspace pool keeps it).
//   -DTC_PACK:    the packing limits lowered to 2^30 multiply-adds (A transposed, B copied).
#include <tilecraft/tilecraft.cuh>
#include <cstdint>
cudaError_t FN(int m, int n, int k, const float* a, const float* b, float* c, cudaStream_t s) {
  tilecraft::detail::GemmTunables t;
#if defined(TC_PACK)
  t.pack.min_volume = 1073741824.0;
  t.pack.copy_min_volume = 1073741824.0;
#endif
#if defined(TC_COPY_B)
  static float* copy = nullptr;
  static std::int64_t copy_elems = 0;
  const std::int64_t ldb = (n + 3) / 4 * 4;
  if (copy_elems < ldb * k) {
    if (copy != nullptr) cudaFree(copy);
    if (cudaError_t e = cudaMalloc(&copy, sizeof(float) * ldb * k); e != cudaSuccess) return e;
    copy_elems = ldb * k;
  }
  if (ldb != n) {
    if (cudaError_t e = tilecraft::detail::copy_rows(b, n, copy, ldb, k, n, s); e != cudaSuccess) return e;
    b = copy;
  }
#else
  const std::int64_t ldb = n;
#endif
  return tilecraft::detail::gemm_run<void, float>(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none,
                                                  m, n, k, 1.0f, a, k, b, ldb, 0.0f, c, n, t, s);
}
