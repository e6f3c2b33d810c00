// partition and select_if (in place too) of ints, every Keep mode, checked against a host
// reference: built by run7.sh as the tests' .assert variant builds (assertions, -O1 for NVVM and
// ptxas), where a std::memcpy in retire_loads once raised an illegal instruction.
#include <tilecraft/device/select.cuh>
#include <cstdio>
#include <vector>
struct Keep {
  int mode;
  __host__ __device__ bool operator()(int v) const {
    return mode == 0 ? false : mode == 1 ? true : mode == 2 ? (v & 1) != 0 : v < (1 << 19);
  }
};
int main() {
  int bad = 0;
  for (int mode = 0; mode < 4; ++mode)
    for (long long n : {2049ll, 5000ll, 70001ll, 3000017ll}) {
      std::vector<int> h(n), ref;
      for (long long i = 0; i < n; ++i) h[i] = int((i * 2654435761u) >> 12);
      for (int v : h)
        if (Keep{mode}(v)) ref.push_back(v);
      int *in, *out;
      long long* cnt;
      void* tmp = nullptr;
      std::size_t b = 0;
      cudaMalloc(&in, n * 4);
      cudaMalloc(&out, n * 4);
      cudaMalloc(&cnt, 8);
      cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
      (void)tilecraft::partition(nullptr, b, in, out, cnt, (std::int64_t)n, Keep{mode});
      cudaMalloc(&tmp, b);
      cudaError_t e = tilecraft::partition(tmp, b, in, out, cnt, (std::int64_t)n, Keep{mode});
      cudaError_t e2 = tilecraft::select_if(tmp, b, in, in, cnt, (std::int64_t)n, Keep{mode});
      cudaError_t s = cudaDeviceSynchronize();
      std::vector<int> got(n);
      long long c = -1;
      cudaMemcpy(got.data(), in, n * 4, cudaMemcpyDeviceToHost);
      cudaMemcpy(&c, cnt, 8, cudaMemcpyDeviceToHost);
      bool ok = s == cudaSuccess && e == 0 && e2 == 0 && c == (long long)ref.size();
      for (std::size_t i = 0; ok && i < ref.size(); ++i) ok = got[i] == ref[i];
      if (!ok) {
        std::printf("mode %d n %lld: %s count %lld want %zu\n", mode, n, cudaGetErrorString(s), c, ref.size());
        bad++;
        if (s) return 1;
      }
      cudaFree(in);
      cudaFree(out);
      cudaFree(cnt);
      cudaFree(tmp);
    }
  std::printf("%s\n", bad ? "FAILED" : "all ok");
}
