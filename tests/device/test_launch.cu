// opt_in_dynamic_smem: a kernel with more than 48 KiB of dynamic shared memory launches after
// the opt-in and computes the right result over all of it; more than the device allows is
// refused before any launch. arch::grid_sync: a cooperative grid passes many barriers in a row,
// and after each one every block sees what every other block wrote before it.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <tilecraft/arch/grid_sync.cuh>
#include <tilecraft/util/launch.cuh>

#include "test_util.cuh"

namespace {
// Each thread writes its stride of the whole dynamic buffer, then (after the barrier) reads
// the mirror image another thread wrote: every byte of the buffer is used.
__global__ void big_smem_kernel(int* out, int words) {
  extern __shared__ __align__(16) int buf[];
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x)) buf[i] = i * 3 + 1;
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x)) out[i] = buf[words - 1 - i];
}

// Round r: every thread writes its slot, the grid meets, every thread checks the slot of a
// thread `r` blocks ahead (a stale value means the barrier let someone through early), and the
// grid meets again before the slots are overwritten. Each block counts what it saw wrong.
__global__ void grid_sync_kernel(unsigned* slots, int* wrong, int rounds, unsigned seed) {
  const unsigned blocks = gridDim.x;
  const unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  int bad = 0;
  for (int r = 0; r < rounds; ++r) {
    slots[me] = me * 2654435761u + static_cast<unsigned>(r) * seed;
    tilecraft::arch::grid_sync();
    const unsigned other_block = (blockIdx.x + static_cast<unsigned>(r) + 1u) % blocks;
    const unsigned other = other_block * blockDim.x + (threadIdx.x * 7u + static_cast<unsigned>(r)) % blockDim.x;
    bad += slots[other] != other * 2654435761u + static_cast<unsigned>(r) * seed;
    tilecraft::arch::grid_sync();
  }
  if (bad != 0) atomicAdd(wrong + blockIdx.x, bad);
}
}  // namespace

TEST_CASE("arch::grid_sync: a cooperative grid meets many times, each block seeing every other's writes") {
  int device = 0, sms = 0, per_sm = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  constexpr int threads = 128;
  TILECRAFT_THROW_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sync_kernel, threads, 0));
  REQUIRE(per_sm >= 1);
  const auto seed = static_cast<unsigned>(tilecraft::test::seed()) | 1u;
  for (const int blocks : {1, 3, sms, sms * (per_sm < 2 ? per_sm : 2)}) {
    CAPTURE(blocks);
    const int rounds = tilecraft::test::sanitizer_sized() ? 8 : 200;
    tilecraft::test::DeviceBuffer<unsigned> slots(static_cast<std::size_t>(blocks) * threads);
    tilecraft::test::DeviceBuffer<int> wrong(static_cast<std::size_t>(blocks));
    slots.poison();
    TILECRAFT_THROW_IF_ERROR(cudaMemset(wrong.get(), 0, wrong.size() * sizeof(int)));
    unsigned* slots_ptr = slots.get();
    int* wrong_ptr = wrong.get();
    int rounds_arg = rounds;
    unsigned seed_arg = seed;
    void* args[] = {&slots_ptr, &wrong_ptr, &rounds_arg, &seed_arg};
    TILECRAFT_THROW_IF_ERROR(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(grid_sync_kernel),
                                                         dim3(static_cast<unsigned>(blocks)), dim3(threads), args));
    tilecraft::test::sync_and_check();
    const auto h = wrong.download();
    int bad = 0;
    for (const int w : h) bad += w;
    CHECK(bad == 0);
  }
}

TEST_CASE("opt_in_dynamic_smem: above 48 KiB after the opt-in, refused beyond the device's limit") {
  int device = 0, optin = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  int major = 0, minor = 0;
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  CHECK(tilecraft::max_smem_per_block_optin(major, minor) == static_cast<std::size_t>(optin));

  const std::size_t bytes = static_cast<std::size_t>(optin) / 16 * 16;  // all a block may have
  REQUIRE(bytes > 48 * 1024);
  const int words = static_cast<int>(bytes / sizeof(int));
  tilecraft::test::DeviceBuffer<int> out(static_cast<std::size_t>(words));
  out.poison();
  CHECK(tilecraft::opt_in_dynamic_smem(big_smem_kernel, bytes) == cudaSuccess);
  big_smem_kernel<<<1, 256, bytes>>>(out.get(), words);
  tilecraft::test::sync_and_check();
  const auto h = out.download();
  int bad = 0;
  for (int i = 0; i < words; ++i) bad += h[static_cast<std::size_t>(i)] != (words - 1 - i) * 3 + 1;
  CHECK(bad == 0);

  CHECK(tilecraft::opt_in_dynamic_smem(big_smem_kernel, bytes + 16) == cudaErrorInvalidValue);
  CHECK(tilecraft::opt_in_dynamic_smem(big_smem_kernel, 1024) == cudaSuccess);
}
