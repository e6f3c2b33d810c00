#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>
struct Token {};
int main() {
  float* p = nullptr;
  std::size_t bytes = 0;
  // Sum cannot add a Token and a float.
  return static_cast<int>(
      tilecraft::exclusive_scan(nullptr, bytes, static_cast<const float*>(p), p, 1, tilecraft::Sum{}, Token{}));
}
