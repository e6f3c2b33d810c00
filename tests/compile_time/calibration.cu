// Compile-time probe (.ci/compile-time): the machine's yardstick. Nothing of tilecraft, only the
// toolkit's CUB (fixed for a toolkit version): five device algorithms, whose template depth and
// kernel sizes are like a GEMM unit's. The check divides the other units' CPU time by this one's,
// compiled at the same time under the same load, so a slower or busier machine moves both.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

struct AboveHalf {
  __host__ __device__ bool operator()(float x) const { return x > 0.5f; }
};

cudaError_t calibration_sort_keys(void* temp, size_t& bytes, const float* in, float* out, int n, cudaStream_t stream) {
  return cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, n, 0, 32, stream);
}

cudaError_t calibration_sort_pairs(void* temp, size_t& bytes, const double* keys, double* keys_out, const int* values,
                                   int* values_out, int n, cudaStream_t stream) {
  return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, keys_out, values, values_out, n, 0, 64, stream);
}

cudaError_t calibration_scan(void* temp, size_t& bytes, const double* in, double* out, int n, cudaStream_t stream) {
  return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n, stream);
}

cudaError_t calibration_histogram(void* temp, size_t& bytes, const float* in, int* bins, int n, cudaStream_t stream) {
  return cub::DeviceHistogram::HistogramEven(temp, bytes, in, bins, 65, 0.0f, 1.0f, n, stream);
}

cudaError_t calibration_select(void* temp, size_t& bytes, const float* in, float* out, int* count, int n,
                               cudaStream_t stream) {
  return cub::DeviceSelect::If(temp, bytes, in, out, count, n, AboveHalf{}, stream);
}
