// The reduction ladder: the course's kernels rung by rung, then tilecraft, with bandwidth.
//   1. interleaved addressing     divergent warps, conflicting strides
//   2. sequential addressing      the course's reduceSum
//   3. first add during load      half the blocks, no idle first step
//   4. warp-unrolled              the last 32 -> 1 steps as shuffles, no barriers
//   5. tilecraft::block_reduce    the same pass with the library's block primitive
//   6. tilecraft::reduce          one launch: 16-byte loads over a cooperative grid, block 0 finishes
// Usage: reduce_ladder [n]   (default 2^26 floats)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tilecraft/block/block_reduce.cuh>
#include <tilecraft/device/reduce.cuh>
#include <tilecraft/util/functional.cuh>

#include "course/reduce_course.cuh"
#include "example_util.cuh"

// Rung 5: rung 3's pass with block_reduce doing the in-block part.
__global__ void reduce_block_reduce(const float* in, float* out, std::int64_t n) {
  __shared__ tilecraft::BlockReduceStorage<float, course::reduce_threads> temp;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x * 2 + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  const float total = tilecraft::block_reduce(temp, v, tilecraft::Sum{});
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

int main(int argc, char** argv) {
  if (!example::have_gpu("reduce_ladder")) return 0;
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : (std::int64_t{1} << 26);
  std::vector<float> h(static_cast<std::size_t>(n));
  double ref = 0;
  for (std::int64_t i = 0; i < n; ++i) ref += h[static_cast<std::size_t>(i)] = static_cast<float>(i % 7) * 0.25f + 0.5f;
  float *in = nullptr, *scratch = nullptr, *out = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&in, n * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&scratch, course::reduce_scratch_elems(n) * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0;
  TILECRAFT_THROW_IF_ERROR(tilecraft::reduce(nullptr, temp_bytes, in, out, n, tilecraft::Sum{}, 0.0f));
  void* temp = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&temp, temp_bytes));

  const double bytes = static_cast<double>(n) * sizeof(float);
  auto rung = [&](const char* name, auto launch) {
    const double ms = example::time_ms(launch);
    float got = 0;
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost));
    example::report(name, ms, bytes, example::verdict(std::fabs(got - ref) <= 1e-5 * ref));
  };
  std::printf("%lld floats, sum %.1f\n", static_cast<long long>(n), ref);
  const cudaStream_t s = nullptr;
  rung("1 interleaved", [&] {
    TILECRAFT_THROW_IF_ERROR(course::reduce_passes(course::reduce_interleaved, 256, in, scratch, out, n, s));
  });
  rung("2 sequential", [&] {
    TILECRAFT_THROW_IF_ERROR(course::reduce_passes(course::reduce_sequential, 256, in, scratch, out, n, s));
  });
  rung("3 first add during load",
       [&] { TILECRAFT_THROW_IF_ERROR(course::reduce_passes(course::reduce_first_add, 512, in, scratch, out, n, s)); });
  rung("4 warp-unrolled", [&] {
    TILECRAFT_THROW_IF_ERROR(course::reduce_passes(course::reduce_warp_unrolled, 512, in, scratch, out, n, s));
  });
  rung("5 tilecraft::block_reduce",
       [&] { TILECRAFT_THROW_IF_ERROR(course::reduce_passes(reduce_block_reduce, 512, in, scratch, out, n, s)); });
  rung("6 tilecraft::reduce",
       [&] { TILECRAFT_THROW_IF_ERROR(tilecraft::reduce(temp, temp_bytes, in, out, n, tilecraft::Sum{}, 0.0f)); });
  for (void* p : {static_cast<void*>(in), static_cast<void*>(scratch), static_cast<void*>(out), temp})
    TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  return example::exit_status();
}
