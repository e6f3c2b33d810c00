// opt_in_dynamic_smem: a kernel with more than 48 KiB of dynamic shared memory, and one whose
// static and dynamic shared memory together pass 48 KiB, launch after the opt-in and compute
// the right result over all of it; more than the device allows is refused before any launch. arch::grid_sync: a
// cooperative grid passes many barriers in a row, and after each one every block sees what every other block wrote
// before it. detail::copy_rows (the GEMM's operand copy to aligned rows): random shapes, leading dimensions and
// misaligned sources (element by element) and sources of whole 16-byte vectors (the vector kernel), the padding
// zeroed, nothing written past the rows; bad arguments refused before any launch.
// TILECRAFT_RETURN_IF_ERROR: a failed call's error returned once, the last-error slot left empty.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <tilecraft/arch/grid_sync.cuh>
#include <tilecraft/device/detail/pack_copy.cuh>
#include <tilecraft/util/math.cuh>
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

// 40 KiB of static shared memory beside `words` ints of dynamic: each thread writes its stride
// of both, then reads the mirror images. Static plus dynamic above 48 KiB needs the opt-in even
// where the dynamic part alone is below it.
constexpr int static_words = 40 * 1024 / 4;
__global__ void static_and_dynamic_kernel(int* out, int words) {
  __shared__ int fixed[static_words];
  extern __shared__ __align__(16) int buf[];
  for (int i = static_cast<int>(threadIdx.x); i < static_words; i += static_cast<int>(blockDim.x)) fixed[i] = i ^ 5;
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x)) buf[i] = i * 7 + 2;
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x)) {
    out[i] = buf[words - 1 - i] + fixed[(words - 1 - i) % static_words];
  }
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

TEST_CASE(
    "arch::grid_sync: a cooperative grid meets many times, each block seeing every other's writes, either launch "
    "form") {
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
    // The launchers' form too: cudaLaunchKernelEx with the cooperative attribute.
    REQUIRE(tilecraft::detail::launch_cooperative(grid_sync_kernel, dim3(static_cast<unsigned>(blocks)), dim3(threads),
                                                  0, nullptr, slots_ptr, wrong_ptr, rounds_arg,
                                                  seed_arg + 2u) == cudaSuccess);
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

namespace {
// A composed call that fails in its runtime call (an attribute beyond any device's limit).
cudaError_t set_too_much_smem() {
  TILECRAFT_RETURN_IF_ERROR(
      cudaFuncSetAttribute(big_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 30));
  return cudaSuccess;
}
}  // namespace

TEST_CASE("TILECRAFT_RETURN_IF_ERROR returns a failed call's error once, leaving the last-error slot empty") {
  // Its runtime calls fail on purpose, which compute-sanitizer reports as errors.
  if (std::getenv("TILECRAFT_TEST_SANITIZER") != nullptr) return;
  (void)cudaGetLastError();
  // The runtime keeps a failed call's error in its last-error slot ...
  CHECK(cudaFuncSetAttribute(big_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 30) ==
        cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  // ... which the macro clears as it returns the error, so that the next launch check of a
  // launcher built on it does not report it again as its own.
  CHECK(set_too_much_smem() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
}

namespace {
// A composed call whose own check fails, with no runtime call behind it.
cudaError_t refuse_by_own_check() {
  TILECRAFT_RETURN_IF_ERROR(cudaErrorInvalidValue);
  return cudaSuccess;
}
}  // namespace

TEST_CASE("launchers report their own status and leave an earlier call's error in the last-error slot") {
  // Its runtime call fails on purpose, which compute-sanitizer reports as an error.
  if (std::getenv("TILECRAFT_TEST_SANITIZER") != nullptr) return;
  constexpr std::int64_t rows = 5, cols = 37;
  std::vector<float> h_src(static_cast<std::size_t>(rows * cols));
  auto g = tilecraft::test::rng(4242);
  for (auto& v : h_src) v = static_cast<float>(g.uniform_int(-1000, 1000));
  tilecraft::test::DeviceBuffer<float> src(h_src);
  tilecraft::test::DeviceBuffer<float> dst(h_src.size());
  dst.poison();
  (void)cudaGetLastError();
  int devices = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDeviceCount(&devices));
  // A call fails and its caller handles the status it returned: its error stays in the slot.
  CHECK(cudaSetDevice(devices) == cudaErrorInvalidDevice);
  // A launch that works reports success, not that error (a launch checked through the slot, as
  // with <<<...>>> and cudaGetLastError, would report it) ...
  CHECK(tilecraft::detail::copy_rows<float>(src.get(), cols, dst.get(), cols, rows, cols, nullptr) == cudaSuccess);
  CHECK(cudaStreamSynchronize(nullptr) == cudaSuccess);
  // ... a call refused by its own checks reports its error ...
  CHECK(tilecraft::detail::copy_rows<float>(src.get(), cols, dst.get(), cols - 1, rows, cols, nullptr) ==
        cudaErrorInvalidValue);
  CHECK(refuse_by_own_check() == cudaErrorInvalidValue);
  // ... and the earlier error is still there for its owner.
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  const auto h = dst.download();
  int bad = 0;
  for (std::size_t i = 0; i < h.size(); ++i) bad += !tilecraft::test::same_bits(h[i], h_src[i]);
  CHECK(bad == 0);
}

TEST_CASE("opt_in_dynamic_smem: static plus dynamic shared memory above 48 KiB, the dynamic part below it") {
  int device = 0, optin = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t bytes = 20 * 1024;  // 60 KiB with the static 40: every GPU since sm_75 opts in to 64
  REQUIRE(static_cast<std::size_t>(optin) >= bytes + static_words * sizeof(int));
  const int words = static_cast<int>(bytes / sizeof(int));
  tilecraft::test::DeviceBuffer<int> out(static_cast<std::size_t>(words));
  out.poison();
  CHECK(tilecraft::opt_in_dynamic_smem(static_and_dynamic_kernel, bytes) == cudaSuccess);
  static_and_dynamic_kernel<<<1, 256, bytes>>>(out.get(), words);
  tilecraft::test::sync_and_check();
  const auto h = out.download();
  int bad = 0;
  for (int i = 0; i < words; ++i) {
    const int j = words - 1 - i;
    bad += h[static_cast<std::size_t>(i)] != j * 7 + 2 + ((j % static_words) ^ 5);
  }
  CHECK(bad == 0);
  // What the device cannot hold beside the static 40 KiB is refused before any launch.
  CHECK(tilecraft::opt_in_dynamic_smem(static_and_dynamic_kernel, static_cast<std::size_t>(optin)) ==
        cudaErrorInvalidValue);
}

namespace {
// One copy_rows call checked element by element: the rows copied, each row's padding
// (inner ... ldp - 1) zero, the guard after the last row still poisoned.
template <class T>
void check_copy_rows(std::int64_t outer, std::int64_t inner, std::int64_t ld, std::int64_t ldp, std::int64_t offset,
                     std::uint64_t salt) {
  CAPTURE(outer);
  CAPTURE(inner);
  CAPTURE(ld);
  CAPTURE(ldp);
  CAPTURE(offset);
  const auto src_elems = static_cast<std::size_t>(offset + (outer - 1) * ld + inner);
  const auto dst_elems = static_cast<std::size_t>(outer * ldp);
  constexpr std::size_t guard = 64;
  auto g = tilecraft::test::rng(salt);
  std::vector<T> h_src(src_elems);
  for (auto& v : h_src) v = tilecraft::test::make_value<T>(g());
  tilecraft::test::DeviceBuffer<T> src(h_src);
  tilecraft::test::DeviceBuffer<T> dst(dst_elems + guard);
  dst.poison();
  CHECK(tilecraft::detail::copy_rows<T>(src.get() + offset, ld, dst.get(), ldp, outer, inner, nullptr) == cudaSuccess);
  tilecraft::test::sync_and_check();
  const auto h = dst.download();
  const T zero{};
  const T poison = tilecraft::test::poison_value<T>();
  std::int64_t bad_copy = 0, bad_pad = 0, bad_guard = 0;
  for (std::int64_t r = 0; r < outer; ++r) {
    for (std::int64_t c = 0; c < ldp; ++c) {
      const T got = h[static_cast<std::size_t>(r * ldp + c)];
      if (c < inner) {
        bad_copy += !tilecraft::test::same_bits(got, h_src[static_cast<std::size_t>(offset + r * ld + c)]);
      } else {
        bad_pad += !tilecraft::test::same_bits(got, zero);
      }
    }
  }
  for (std::size_t i = dst_elems; i < dst_elems + guard; ++i) bad_guard += !tilecraft::test::same_bits(h[i], poison);
  CHECK(bad_copy == 0);
  CHECK(bad_pad == 0);
  CHECK(bad_guard == 0);
}

template <class T>
void check_random_copy_rows(std::uint64_t salt) {
  auto g = tilecraft::test::rng(salt);
  const int cases = tilecraft::test::sanitizer_sized() ? 12 : 60;
  for (int i = 0; i < cases; ++i) {
    const std::int64_t outer = g.uniform_int(1, 200);
    // Across the kernel's chunk of 1024 elements a block, and short rows.
    const std::int64_t inner = g.uniform_int(0, 1) ? g.uniform_int(0, 40) : g.uniform_int(900, 2200);
    std::int64_t ld = inner + g.uniform_int(0, 1) * g.uniform_int(1, 37);
    std::int64_t ldp = inner + g.uniform_int(0, 40);
    std::int64_t offset = g.uniform_int(0, 5);
    if (i % 2 == 0) {
      // Whole 16-byte vectors in both rows and both bases: the vector kernel, with a row's
      // last vector partly past inner (read element by element) and padding vectors after it.
      constexpr std::int64_t v = 16 / static_cast<std::int64_t>(sizeof(T));
      ld = tilecraft::round_up(ld, v);
      ldp = tilecraft::round_up(ldp, v);
      offset = v * g.uniform_int(0, 3);
    }
    check_copy_rows<T>(outer, inner, ld, ldp, offset, salt + 1000 + static_cast<std::uint64_t>(i));
  }
  // Rows 16 bytes off a 32-byte boundary (an odd number of 16-byte vectors, from a base 16 bytes
  // off) into 128-byte ones, the last vector of each row partly past inner: the tensor-core
  // launchers' copy, through the vector kernel for every T.
  constexpr std::int64_t v = 16 / static_cast<std::int64_t>(sizeof(T));
  check_copy_rows<T>(301, 2291, v * ((2300 / v) | 1), tilecraft::round_up<std::int64_t>(2291, 128 / sizeof(T)), v,
                     salt + 5);
  // More rows than a grid has in y (65535): the rows loop.
  check_copy_rows<T>(70001, 3, 5, 4, 1, salt + 7);
}
}  // namespace

TEST_CASE("detail::copy_rows: rows copied to padded ones, the padding zeroed, nothing past the end") {
  check_random_copy_rows<float>(101);
  check_random_copy_rows<std::uint16_t>(202);
  check_random_copy_rows<double>(303);
}

TEST_CASE("detail::copy_rows: bad arguments refused before any launch, the destination untouched") {
  tilecraft::test::DeviceBuffer<float> src(64);
  tilecraft::test::DeviceBuffer<float> dst(64);
  src.poison();
  dst.poison();
  using tilecraft::detail::copy_rows;
  CHECK(copy_rows<float>(src.get(), 8, dst.get(), 7, 4, 8, nullptr) == cudaErrorInvalidValue);   // ldp < inner
  CHECK(copy_rows<float>(src.get(), 7, dst.get(), 8, 4, 8, nullptr) == cudaErrorInvalidValue);   // ld < inner
  CHECK(copy_rows<float>(src.get(), 8, dst.get(), 8, -1, 8, nullptr) == cudaErrorInvalidValue);  // outer < 0
  CHECK(copy_rows<float>(src.get(), 8, dst.get(), 8, 4, -1, nullptr) == cudaErrorInvalidValue);  // inner < 0
  CHECK(copy_rows<float>(nullptr, 8, dst.get(), 8, 4, 8, nullptr) == cudaErrorInvalidValue);     // null source
  CHECK(copy_rows<float>(src.get(), 8, nullptr, 8, 4, 8, nullptr) == cudaErrorInvalidValue);     // null destination
  CHECK(copy_rows<float>(nullptr, 8, nullptr, 8, 0, 8, nullptr) == cudaSuccess);                 // nothing to copy
  tilecraft::test::sync_and_check();
  const auto h = dst.download();
  const float poison = tilecraft::test::poison_value<float>();
  int touched = 0;
  for (const float v : h) touched += !tilecraft::test::same_bits(v, poison);
  CHECK(touched == 0);
}
