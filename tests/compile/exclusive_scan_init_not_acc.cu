#include <tilecraft/device/scan.cuh>
// op(Tag, int) decides the accumulator (Weight), which a Tag cannot become.
struct Tag {};
struct Weight {
  int v;
  Weight() = default;
  __host__ __device__ Weight(int x) : v(x) {}
  __host__ __device__ operator int() const { return v; }
};
struct Op {
  __host__ __device__ Weight operator()(Tag, int x) const { return Weight{x}; }
  __host__ __device__ Weight operator()(Weight a, Weight b) const { return Weight{a.v + b.v}; }
};
int main() {
  int* p = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::exclusive_scan(nullptr, bytes, static_cast<const int*>(p), p, 1, Op{}, Tag{}));
}
