#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>
// Trivially copyable but without a default constructor.
struct Meters {
  int v;
  __host__ __device__ explicit Meters(int x) : v(x) {}
  __host__ __device__ operator int() const { return v; }
};
int main() {
  int* out = nullptr;
  const Meters* in = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::inclusive_scan(nullptr, bytes, in, out, 1, tilecraft::Sum{}));
}
