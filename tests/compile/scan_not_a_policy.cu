#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>
// A Policy that is not a tilecraft::ScanPolicy<Threads, Items>.
struct MyPolicy {
  static constexpr int threads = 256;
  static constexpr int items = 16;
};
int main() {
  const float* in = nullptr;
  float* out = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::inclusive_scan<MyPolicy>(nullptr, bytes, in, out, 1, tilecraft::Sum{}));
}
