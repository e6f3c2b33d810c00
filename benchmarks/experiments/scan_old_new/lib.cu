// One version of the library behind plain functions named FN_* (run.sh builds it twice:
// -Dtilecraft=tc_old -DFN=old against the old headers, tc_new / new against the new).
#include <cstdint>

#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/util/functional.cuh>

#include "common.cuh"

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)

cudaError_t CAT(FN, scan_f32)(void* t, std::size_t& b, const float* in, float* out, std::int64_t n, cudaStream_t s) {
  return tilecraft::inclusive_scan(t, b, in, out, n, tilecraft::Sum{}, s);
}
cudaError_t CAT(FN, scan_i32)(void* t, std::size_t& b, const int* in, int* out, std::int64_t n, cudaStream_t s) {
  return tilecraft::inclusive_scan(t, b, in, out, n, tilecraft::Sum{}, s);
}
cudaError_t CAT(FN, scan_i64)(void* t, std::size_t& b, const std::int64_t* in, std::int64_t* out, std::int64_t n,
                              cudaStream_t s) {
  return tilecraft::exclusive_scan(t, b, in, out, n, tilecraft::Sum{}, std::int64_t{0}, s);
}
cudaError_t CAT(FN, select_f32)(void* t, std::size_t& b, const float* in, float* out, long long* count, std::int64_t n,
                                cudaStream_t s) {
  return tilecraft::select_if(t, b, in, out, count, n, Positive{}, s);
}
