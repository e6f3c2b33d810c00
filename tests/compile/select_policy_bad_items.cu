#include <tilecraft/device/select.cuh>
struct Positive {
  __host__ __device__ bool operator()(float v) const { return v > 0.0f; }
};
int main() {
  float* p = nullptr;
  long long* count = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::select_if<tilecraft::ScanPolicy<64, 65>>(
      nullptr, bytes, static_cast<const float*>(p), p, count, 1, Positive{}));
}
