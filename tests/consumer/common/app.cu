// A consumer's CUDA source: one launcher, run when a GPU is present. The installed package's
// consumer includes the umbrella header (every header it names must have been installed); the
// add_subdirectory one, whose headers are the source tree's, the launcher's own header and the
// throwing helper's (the umbrella would double its compile time for nothing those do not show).
#ifdef CONSUMER_ONE_HEADER
#include <tilecraft/device/reduce.cuh>
#include <tilecraft/util/error.cuh>
#else
#include <tilecraft/tilecraft.cuh>
#endif

#include <cstdio>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer_app: built; no GPU to run on\n");
    return 0;
  }
  float* d = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d, 2 * sizeof(float)));
  const float ones[1] = {1.0f};
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(d, ones, sizeof(float), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(tilecraft::reduce(d, d + 1, 1, tilecraft::Sum{}, 41.0f));
  float out = 0;
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&out, d + 1, sizeof(float), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaFree(d));
  std::printf("consumer_app: %g\n", out);
  return out == 42.0f ? 0 : 1;
}
