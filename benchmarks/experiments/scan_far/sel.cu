// select_if's look-back, waiting in place (the library) or walking back over the aggregates
// (look_back_far, a variant run.sh builds): 2^22 ... 2^28 floats, about half kept, beside
// cub::DeviceSelect::If (L2 flushed, medians of 11 runs, us). The kept items and their count
// are hashed: every variant must print the same hashes.
#include <cub/device/device_select.cuh>
#include <tilecraft/device/select.cuh>

#include <cstdio>
#include <vector>

#include "select_input.cuh"

int main(int argc, char** argv) {
  const char* variant = argc > 1 ? argv[1] : "library";
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  char* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  void* temp;
  const std::size_t temp_bytes = std::size_t{64} << 20;
  CK(cudaMalloc(&temp, temp_bytes));
  long long* count;
  CK(cudaMalloc(&count, sizeof(long long)));
  for (int lg = 22; lg <= 28; lg += 2) {
    const long long n = 1ll << lg;
    float *in, *out;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    fill<<<1024, 256, 0, s>>>(in, n);
    CK(cudaGetLastError());
    std::size_t cub_bytes = 0;
    CK(cub::DeviceSelect::If(nullptr, cub_bytes, in, out, count, n, Below{}, s));
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    const float cub = median_us([&] { CK(cub::DeviceSelect::If(cub_temp, cub_bytes, in, out, count, n, Below{}, s)); },
                                flush, std::size_t{256} << 20, s);
    std::size_t bytes = temp_bytes;
    const float lib = median_us([&] { CK(tilecraft::select_if(temp, bytes, in, out, count, n, Below{}, s)); }, flush,
                                std::size_t{256} << 20, s);
    CK(cudaStreamSynchronize(s));
    long long kept = 0;
    CK(cudaMemcpy(&kept, count, sizeof(kept), cudaMemcpyDeviceToHost));
    std::vector<unsigned> got(kept);
    CK(cudaMemcpy(got.data(), out, kept * sizeof(float), cudaMemcpyDeviceToHost));
    unsigned long long h = 1469598103934665603ull ^ static_cast<unsigned long long>(kept);
    for (const unsigned w : got) h = (h ^ w) * 1099511628211ull;
    std::printf("%-10s select 2^%d: cub %7.1f us, tilecraft %7.1f us, %.3fx cub, kept %lld, bits %016llx\n", variant,
                lg, cub, lib, cub / lib, kept, h);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
  }
  return 0;
}
