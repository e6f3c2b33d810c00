#include <tilecraft/device/scan.cuh>
// op(*d_out, *d_in) is callable (float, Sample) -> float, so the accumulator is float, but op
// cannot combine two accumulators (float, float): the look-back and the block scan need that.
struct Sample {
  float x;
};
struct AddSample {
  __host__ __device__ float operator()(float acc, Sample s) const { return acc + s.x; }
  __host__ __device__ float operator()(float, float) const = delete;
};
int main() {
  const Sample* in = nullptr;
  float* out = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::inclusive_scan(nullptr, bytes, in, out, 1, AddSample{}));
}
