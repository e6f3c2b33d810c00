#include <tilecraft/device/scan.cuh>
// An input with a user-written copy constructor: tiles stage inputs as raw bytes, so the scan
// refuses it (the op itself would accept it, and float accumulators).
struct Sample {
  float v = 0.0f;
  Sample() = default;
  __host__ __device__ Sample(const Sample& o) : v(o.v) {}
};
struct AddSample {
  __host__ __device__ float operator()(float acc, const Sample& s) const { return acc + s.v; }
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
};
int main() {
  const Sample* in = nullptr;
  float* out = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::inclusive_scan(nullptr, bytes, in, out, 1, AddSample{}));
}
