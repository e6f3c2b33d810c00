#include <tilecraft/device/scan.cuh>
// A 40 KiB staging buffer of 256-byte items (160 of them) and 256-byte accumulators: with
// block_scan's storage and the look-back's 32 accumulators (8 KiB), past 48 KiB.
struct Wide {
  unsigned w[64];
};
struct AddWide {
  __host__ __device__ Wide operator()(const Wide& a, const Wide& b) const {
    Wide r;
    for (int i = 0; i < 64; ++i) r.w[i] = a.w[i] + b.w[i];
    return r;
  }
};
int main() {
  Wide* p = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::inclusive_scan<tilecraft::ScanPolicy<160, 1>>(
      nullptr, bytes, static_cast<const Wide*>(p), p, 1, AddWide{}));
}
