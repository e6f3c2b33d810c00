#include <tilecraft/device/select.cuh>
// An item with a user-written copy constructor: tiles stage items in shared memory as raw bytes.
struct Counted {
  int v = 0;
  Counted() = default;
  __host__ __device__ Counted(const Counted& o) : v(o.v) {}
};
struct Any {
  __host__ __device__ bool operator()(const Counted&) const { return true; }
};
int main() {
  Counted* p = nullptr;
  long long* count = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::select_if(nullptr, bytes, static_cast<const Counted*>(p), p, count, 1, Any{}));
}
