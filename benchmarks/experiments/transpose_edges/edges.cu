// The default transpose against the course's padded policy on ragged and aligned shapes: event
// time of one call (mean of 20 after a warm-up), on a fixed list of shapes.
#include <cstdio>
#include <cstdlib>
#include <tilecraft/device/transpose.cuh>
#include "../cuda_check.cuh"

using Course = tilecraft::TransposePolicy<float, 32, 32, 128, tilecraft::Padded<1>>;

template <class P>
double time_us(const float* in, float* out, long r, long c) {
  auto launch = [&] { CK(tilecraft::transpose<P>(in, c, out, r, r, c)); };
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  launch();
  CK(cudaEventRecord(a));
  for (int i = 0; i < 20; ++i) launch();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms * 1e3 / 20;
}

int main() {
  long shapes[][2] = {{1, 1},      {1, 64},      {64, 64},     {65, 64},     {64, 65},
                      {993, 1005}, {1000, 1000}, {1024, 1024}, {4089, 4101}, {4096, 4096}};
  float *in, *out;
  CK(cudaMalloc(&in, 4096l * 4200 * 4));
  CK(cudaMalloc(&out, 4096l * 4200 * 4));
  CK(cudaMemset(in, 0, 4096l * 4200 * 4));
  for (auto& s : shapes) {
    std::printf("%5ld x %5ld  default %8.1f us  course %8.1f us\n", s[0], s[1], time_us<void>(in, out, s[0], s[1]),
                time_us<Course>(in, out, s[0], s[1]));
  }
  return 0;
}
