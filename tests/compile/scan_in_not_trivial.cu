#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>
// An input type with a user-provided copy: tiles stage inputs as raw bytes, so the scan refuses it.
struct Counted {
  float v = 0.0f;
  __host__ __device__ Counted() {}
  __host__ __device__ Counted(const Counted& o) : v(o.v) {}
  __host__ __device__ Counted& operator=(const Counted& o) {
    v = o.v;
    return *this;
  }
  __host__ __device__ operator float() const { return v; }
};
int main() {
  const Counted* in = nullptr;
  float* out = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::inclusive_scan(nullptr, bytes, in, out, 1, tilecraft::Sum{}));
}
