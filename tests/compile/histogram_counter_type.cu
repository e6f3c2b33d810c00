#include <tilecraft/device/histogram.cuh>
int main() {
  std::size_t bytes = 0;
  const int* in = nullptr;
  const int* levels = nullptr;
  int* hist = nullptr;
  return static_cast<int>(tilecraft::histogram_range(nullptr, bytes, in, hist, 64, levels, 10));
}
