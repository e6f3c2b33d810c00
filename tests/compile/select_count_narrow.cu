#include <tilecraft/device/select.cuh>
struct Positive {
  __host__ __device__ bool operator()(float x) const { return x > 0.0f; }
};
// A 2-byte kept count: most counts would not fit it.
int main() {
  float* p = nullptr;
  short* count = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::select_if(nullptr, bytes, static_cast<const float*>(p), p, count, 1, Positive{}));
}
