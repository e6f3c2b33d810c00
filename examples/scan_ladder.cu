// The scan ladder: the course's kernels rung by rung, then tilecraft, with bandwidth (bytes read
// plus bytes written) and a check of every element against the host.
//   1. Hillis-Steele in shared memory   log2(512) steps of n additions each, then recursion
//   2. work-efficient up/down sweep     O(n) additions in a tree, then recursion
//   3. tilecraft::block_scan            the same passes, 8 elements per thread through block_scan
//   4. tilecraft::inclusive_scan        one pass: decoupled look-back, 16-byte vectors
//   5. tilecraft::exclusive_scan        the same pass, each output the sum before its element
//                                        (seeded with an initial value, here 0)
// Usage: scan_ladder [n]   (default 2^24 floats; values 0 or 1, so every prefix is exact)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tilecraft/block/block_scan.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>

#include "course/scan_course.cuh"
#include "example_util.cuh"

// Rung 3: one pass of the course's structure with block_scan doing the in-block part: 512
// threads x 8 consecutive elements per thread.
constexpr int block_items = 8;
__global__ void __launch_bounds__(course::scan_threads)
    scan_block_scan(const float* in, float* out, float* block_sums, std::int64_t n) {
  __shared__ tilecraft::BlockScanStorage<float, course::scan_threads> temp;
  const std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * course::scan_threads + threadIdx.x) * block_items;
  float v[block_items];
  for (int j = 0; j < block_items; ++j) v[j] = first + j < n ? in[first + j] : 0.0f;
  float total;
  tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{}, total);
  for (int j = 0; j < block_items; ++j) {
    if (first + j < n) out[first + j] = v[j];
  }
  if (threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

int main(int argc, char** argv) {
  if (!example::have_gpu("scan_ladder")) return 0;
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : (std::int64_t{1} << 24);
  std::vector<float> h(static_cast<std::size_t>(n)), ref(static_cast<std::size_t>(n)), ex_ref(ref.size());
  double acc = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    h[static_cast<std::size_t>(i)] = static_cast<float>((static_cast<std::uint64_t>(i) * 2654435761u >> 7) & 1u);
    ex_ref[static_cast<std::size_t>(i)] = static_cast<float>(acc);
    ref[static_cast<std::size_t>(i)] = static_cast<float>(acc += h[static_cast<std::size_t>(i)]);
  }
  float *in = nullptr, *out = nullptr, *scratch = nullptr;
  const std::int64_t scratch_elems = course::scan_scratch_elems(n, course::scan_threads);
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&in, n * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, n * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&scratch, scratch_elems * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0, ex_temp_bytes = 0;
  TILECRAFT_THROW_IF_ERROR(tilecraft::inclusive_scan(nullptr, temp_bytes, in, out, n, tilecraft::Sum{}));
  TILECRAFT_THROW_IF_ERROR(tilecraft::exclusive_scan(nullptr, ex_temp_bytes, in, out, n, tilecraft::Sum{}, 0.0f));
  if (ex_temp_bytes > temp_bytes) temp_bytes = ex_temp_bytes;  // one buffer for both
  void* temp = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&temp, temp_bytes));

  const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);
  std::vector<float> got(static_cast<std::size_t>(n));
  bool all_ok = true;
  auto rung = [&](const char* name, auto launch, const std::vector<float>& expected) {
    TILECRAFT_THROW_IF_ERROR(cudaMemset(out, 0xA5, n * sizeof(float)));
    const double ms = example::time_ms(launch);
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (std::size_t i = 0; i < got.size() && ok; ++i) ok = got[i] == expected[i];
    all_ok = all_ok && ok;
    example::report(name, ms, bytes, example::verdict(ok));
  };
  std::printf("%lld floats, total %.0f\n", static_cast<long long>(n), acc);
  const cudaStream_t s = nullptr;
  rung(
      "1 Hillis-Steele (shared memory)",
      [&] {
        TILECRAFT_THROW_IF_ERROR(
            course::scan_passes(course::scan_hillis_steele, course::scan_threads, in, out, scratch, n, s));
      },
      ref);
  rung(
      "2 work-efficient up/down sweep",
      [&] {
        TILECRAFT_THROW_IF_ERROR(
            course::scan_passes(course::scan_work_efficient, 2 * course::scan_threads, in, out, scratch, n, s));
      },
      ref);
  rung(
      "3 tilecraft::block_scan passes",
      [&] {
        TILECRAFT_THROW_IF_ERROR(
            course::scan_passes(scan_block_scan, course::scan_threads * block_items, in, out, scratch, n, s));
      },
      ref);
  rung(
      "4 tilecraft::inclusive_scan",
      [&] { TILECRAFT_THROW_IF_ERROR(tilecraft::inclusive_scan(temp, temp_bytes, in, out, n, tilecraft::Sum{}, s)); },
      ref);
  rung(
      "5 tilecraft::exclusive_scan",
      [&] {
        TILECRAFT_THROW_IF_ERROR(tilecraft::exclusive_scan(temp, temp_bytes, in, out, n, tilecraft::Sum{}, 0.0f, s));
      },
      ex_ref);
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(scratch), temp})
    TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  return all_ok ? 0 : 1;
}
