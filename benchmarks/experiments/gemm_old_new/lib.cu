// One version of the library behind a plain function, FN (run.sh builds it twice: -Dtilecraft=tc_old
// -DFN=gemm_old against the old headers, tc_new / gemm_new against the new). The launcher's
// detail::gemm_run with its default tunables, but for the packing limits MINVOL and PACKBYTES
// (environment, both versions) or TC_MINVOL (compile time, -DTC_MINVOL=1e9: this version only)
// where set, without dealt K steps where built with -DTC_NO_DEAL, and with the policy TC_POLICY
// forced where built with e.g. -DTC_POLICY=tilecraft::GemmPolicyLarge.
#include <tilecraft/tilecraft.cuh>
#include <cstdlib>
cudaError_t FN(int m, int n, int k, const float* a, const float* b, float* c, cudaStream_t s) {
  tilecraft::detail::GemmTunables t;
  if (const char* v = std::getenv("MINVOL")) t.pack.min_volume = std::atof(v);
  if (const char* v = std::getenv("PACKBYTES")) t.pack.bytes = std::atol(v);
#if defined(TC_MINVOL)
  t.pack.min_volume = TC_MINVOL;
#endif
#if defined(TC_NO_DEAL)
  t.split.balanced = false;  // equal K slices only (libraries from 6f8e4fd on)
#endif
#if !defined(TC_POLICY)
#define TC_POLICY void
#endif
  return tilecraft::detail::gemm_run<TC_POLICY, float>(tilecraft::Order::row_major, tilecraft::Op::none,
                                                       tilecraft::Op::none, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, t,
                                                       s);
}
