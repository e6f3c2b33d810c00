// select_if in place against out of place, 2^28 floats, half kept (L2 flushed, medians of 11),
// the in-place output compared with the out-of-place one (run6.sh builds and runs it).
#include <tilecraft/device/select.cuh>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include "../cuda_check.cuh"
struct Below {
  __host__ __device__ bool operator()(float v) const { return v < 2.5f; }
};
__global__ void fill(float* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = 1.0f + 3.0f * (h >> 8) / 16777216.0f;
  }
}
int main() {
  const long long n = 1ll << 28;
  const size_t bytes = n * sizeof(float);
  float *in, *pristine, *out, *flush;
  long long* count;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&pristine, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMalloc(&flush, 256 << 20));
  CK(cudaMalloc(&count, 16));
  fill<<<1024, 256>>>(pristine, n);
  CK(cudaDeviceSynchronize());
  size_t temp_bytes = 0;
  CK(tilecraft::select_if(nullptr, temp_bytes, pristine, out, count, n, Below{}));
  void* temp;
  CK(cudaMalloc(&temp, temp_bytes));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int in_place = 0; in_place < 2; ++in_place) {
    std::vector<float> t;
    for (int r = 0; r < 14; ++r) {
      CK(cudaMemcpy(in, pristine, bytes, cudaMemcpyDeviceToDevice));
      CK(cudaMemset(flush, r, 256 << 20));
      CK(cudaEventRecord(a));
      CK(tilecraft::select_if(temp, temp_bytes, in, in_place ? in : out, count, n, Below{}));
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r >= 3) t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    long long c = 0;
    CK(cudaMemcpy(&c, count, 8, cudaMemcpyDeviceToHost));
    std::printf("%s: median %.1f us (min %.1f), kept %lld\n", in_place ? "in place" : "out of place", t[t.size() / 2],
                t[0], c);
  }
  // The in-place result (in) against the out-of-place one (out), both from the last runs.
  long long c = 0;
  CK(cudaMemcpy(&c, count, 8, cudaMemcpyDeviceToHost));
  std::vector<float> x(c), y(c);
  CK(cudaMemcpy(x.data(), in, c * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(y.data(), out, c * 4, cudaMemcpyDeviceToHost));
  std::printf("in place equals out of place: %s\n", std::memcmp(x.data(), y.data(), c * 4) == 0 ? "yes" : "NO");
  return 0;
}
