// Stream compaction inside your own kernel: block_scan gives each thread its output slot. Each
// block takes a tile of 256 x 4 values, flags the ones to keep, and an exclusive block_scan of
// the per-item flags tells every thread where its kept values go within the block's run; one
// atomicAdd per block reserves that run in the output (so runs land in any block order, each in
// order inside). The host checks that exactly the kept values came out.
//
// When the compaction is the whole job rather than a step inside your kernel, the device-level
// calls do it in one pass and keep the input order: tilecraft::select_if (the kept values, in
// order) and tilecraft::partition (the kept values in order, then the others in reverse order),
// with CUB's two-phase temp-storage pattern. The example runs both on the same input and checks
// them element by element; then select_if once more in place, on the input array itself (the
// kept values move to its front; partition cannot run in place).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tilecraft/block/block_scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/util/functional.cuh>

#include "example_util.cuh"

constexpr int threads = 256;
constexpr int items = 4;

template <class Keep>
__global__ void __launch_bounds__(threads) compact(const float* in, int n, float* out, unsigned* out_count, Keep keep) {
  // Caller-owned temp storage: 309 ints of shared memory (the default algorithm at 256 threads
  // rakes; BlockScanAlgorithm::warp_scans would take 256 / 32 + 2).
  __shared__ tilecraft::BlockScanStorage<int, threads> temp;
  __shared__ unsigned run_start;
  const int first = (blockIdx.x * threads + threadIdx.x) * items;
  float v[items];
  int slot[items];
  for (int j = 0; j < items; ++j) {
    v[j] = first + j < n ? in[first + j] : 0.0f;
    slot[j] = first + j < n && keep(v[j]) ? 1 : 0;
  }
  const bool kept[items] = {slot[0] != 0, slot[1] != 0, slot[2] != 0, slot[3] != 0};
  int block_kept;
  // slot[j] becomes the number of kept items before item j in the block (blocked order).
  tilecraft::block_exclusive_scan(temp, slot, slot, tilecraft::Sum{}, 0, block_kept);
  if (threadIdx.x == 0) run_start = atomicAdd(out_count, static_cast<unsigned>(block_kept));
  __syncthreads();
  for (int j = 0; j < items; ++j) {
    if (kept[j]) out[run_start + slot[j]] = v[j];
  }
}

struct AboveHalf {
  __device__ bool operator()(float x) const { return x > 0.5f; }
};

int main() {
  if (!example::have_gpu("compaction_in_kernel")) return 0;
  const int n = 1000003;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[static_cast<std::size_t>(i)] = static_cast<float>((i * 7919LL) % 1000) / 1000.0f;
  float *in = nullptr, *out = nullptr;
  unsigned* count = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&in, n * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, n * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&count, sizeof(unsigned)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemset(count, 0, sizeof(unsigned)));
  const int blocks = (n + threads * items - 1) / (threads * items);
  compact<<<blocks, threads>>>(in, n, out, count, AboveHalf{});
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  unsigned kept = 0;
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&kept, count, sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<float> got(kept), want;
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), out, kept * sizeof(float), cudaMemcpyDeviceToHost));
  for (float x : h)
    if (x > 0.5f) want.push_back(x);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  const bool ok = got == want;
  std::printf("kept %u of %d values above 0.5 (%s)\n", kept, n, example::verdict(ok));

  // The device-level calls: the kept values in input order, and the partition of all of them.
  std::vector<float> in_order, rejected;
  for (float x : h) (x > 0.5f ? in_order : rejected).push_back(x);
  std::int64_t* d_selected = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_selected, sizeof(std::int64_t)));
  std::size_t select_bytes = 0, partition_bytes = 0;
  TILECRAFT_THROW_IF_ERROR(tilecraft::select_if(nullptr, select_bytes, in, out, d_selected, n, AboveHalf{}));
  TILECRAFT_THROW_IF_ERROR(tilecraft::partition(nullptr, partition_bytes, in, out, d_selected, n, AboveHalf{}));
  std::size_t temp_bytes = std::max(select_bytes, partition_bytes);
  void* temp = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&temp, temp_bytes));

  TILECRAFT_THROW_IF_ERROR(tilecraft::select_if(temp, temp_bytes, in, out, d_selected, n, AboveHalf{}));
  std::int64_t selected = -1;
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&selected, d_selected, sizeof selected, cudaMemcpyDeviceToHost));
  std::vector<float> picked(static_cast<std::size_t>(std::max<std::int64_t>(selected, 0)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(picked.data(), out, picked.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const bool select_ok = picked == in_order;
  std::printf("select_if: %lld kept, in input order (%s)\n", static_cast<long long>(selected),
              example::verdict(select_ok));

  TILECRAFT_THROW_IF_ERROR(tilecraft::partition(temp, temp_bytes, in, out, d_selected, n, AboveHalf{}));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&selected, d_selected, sizeof selected, cudaMemcpyDeviceToHost));
  std::vector<float> parted(static_cast<std::size_t>(n));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(parted.data(), out, parted.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> expected = in_order;
  expected.insert(expected.end(), rejected.rbegin(), rejected.rend());
  const bool partition_ok = selected == static_cast<std::int64_t>(in_order.size()) && parted == expected;
  std::printf("partition: %lld kept first, the other %lld after them in reverse order (%s)\n",
              static_cast<long long>(selected), static_cast<long long>(n - selected), example::verdict(partition_ok));

  // In place: d_out == d_in. The kept values land at the front of `in`, in order; the rest of it
  // is left as it was.
  TILECRAFT_THROW_IF_ERROR(tilecraft::select_if(temp, temp_bytes, in, in, d_selected, n, AboveHalf{}));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&selected, d_selected, sizeof selected, cudaMemcpyDeviceToHost));
  std::vector<float> compacted(static_cast<std::size_t>(n));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(compacted.data(), in, compacted.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> expected_in_place = in_order;
  expected_in_place.insert(expected_in_place.end(), h.begin() + static_cast<std::ptrdiff_t>(in_order.size()), h.end());
  const bool in_place_ok = selected == static_cast<std::int64_t>(in_order.size()) && compacted == expected_in_place;
  std::printf("select_if in place: %lld kept at the front of the input, the rest as it was (%s)\n",
              static_cast<long long>(selected), example::verdict(in_place_ok));

  TILECRAFT_THROW_IF_ERROR(cudaFree(temp));
  TILECRAFT_THROW_IF_ERROR(cudaFree(d_selected));
  TILECRAFT_THROW_IF_ERROR(cudaFree(in));
  TILECRAFT_THROW_IF_ERROR(cudaFree(out));
  TILECRAFT_THROW_IF_ERROR(cudaFree(count));
  return ok && select_ok && partition_ok && in_place_ok ? 0 : 1;
}
