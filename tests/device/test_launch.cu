// opt_in_dynamic_smem: a kernel with more than 48 KiB of dynamic shared memory launches after
// the opt-in and computes the right result over all of it; more than the device allows is
// refused before any launch.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

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
}  // namespace

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
