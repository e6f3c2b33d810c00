// One-wave float scans with a grid barrier instead of a look-back (the library's default dispatch
// takes its own such form, scan_one_wave_kernel, since this experiment; "library" below is that
// dispatch, "library 1p" its single pass alone, "library 2p" its two passes forced): every tile of the input is
// resident at once (a cooperative launch, one tile a block), so each block loads its tile into
// registers, publishes the tile's sum, meets every other block at the grid barrier, folds the
// sums of the tiles before its own (in a fixed order: the same bits on every run), and scans
// and stores its tile from registers. The input is read once and the output written once, as
// in the single-pass scan, but no tile waits for a chain of predecessors: the barrier costs one
// round of arrivals. It applies up to the tiles a wave holds with their items in registers
// (2^22 floats: 512 tiles of 8192 at 4 blocks an SM, 528 on an H200's 132 SMs), the sizes where
// the scan is furthest from its 1.20x CUB goal (2^22: 0.96-1.00x). Against the library (single pass there, two passes
// forced), CUB's InclusiveSum and memcpy, in one process; L2 flushed before each run, medians
// of 21, us (ratio to CUB). Inputs are 0 / 1 floats, so every inclusive sum below 2^24 is exact
// and every form's result must equal CUB's bit for bit (checked before timing).
// Not built by CMake; run.sh builds and runs it on the GPU machine.
#include <cub/cub.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <tuple>
#include <vector>

#include <tilecraft/arch/cp_async.cuh>
#include <tilecraft/arch/grid_sync.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/launch.cuh>

#include "../experiment_util.cuh"

namespace {

constexpr int threads = 256;

// Both kernels' middle: publishes the block's tile sum (the threads' `own` sums folded), meets
// every block at the grid barrier (release / acquire: every tile's sum visible after it), and
// returns to every thread the sum of the tiles before this block's: PrefixLoads sums a thread
// read at once (all in flight), each thread's in tile order, then folded across the block in a
// fixed order (the same bits on every run). `temp` is free on entry and again on return;
// `prefix` is the block's shared word for the broadcast.
template <int PrefixLoads>
__device__ float earlier_tiles(float own, float* sums, typename cub::BlockReduce<float, threads>::TempStorage& temp,
                               float& prefix) {
  using Reduce = cub::BlockReduce<float, threads>;
  const float tile_sum = Reduce(temp).Sum(own);
  if (threadIdx.x == 0) sums[blockIdx.x] = tile_sum;
  tilecraft::arch::grid_sync();  // (its barriers also free `temp` for the second reduction)
  float part[PrefixLoads];
#pragma unroll
  for (int i = 0; i < PrefixLoads; ++i) {
    const unsigned t = threadIdx.x + static_cast<unsigned>(i * threads);
    part[i] = t < blockIdx.x ? __ldcg(sums + t) : 0.0f;
  }
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < PrefixLoads; ++i) acc += part[i];
  for (unsigned t = threadIdx.x + PrefixLoads * threads; t < blockIdx.x; t += threads) acc += __ldcg(sums + t);
  const float p = Reduce(temp).Sum(acc);
  if (threadIdx.x == 0) prefix = p;
  __syncthreads();
  return prefix;
}

// One tile of threads x Items floats a block, its items in registers, MinBlocks blocks an SM
// (the registers a thread may use: 64 for 4, 32 for 8; a wave holds MinBlocks x SMs tiles, and
// an SM at most 2048 threads, so a wave holds at most 2048 x Items floats an SM: 2^22 floats on
// 132 SMs need Items >= 16). PrefixLoads: earlier_tiles'.
template <int Items, int MinBlocks, int PrefixLoads = 4>
__global__ void __launch_bounds__(threads, MinBlocks)
    barrier_scan(const float* __restrict__ in, float* __restrict__ sums, float* __restrict__ out, long long n) {
  using Load = cub::BlockLoad<float, threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<float, threads, Items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Reduce = cub::BlockReduce<float, threads>;
  using Scan = cub::BlockScan<float, threads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ float prefix;
  constexpr int tile = threads * Items;
  const long long base = static_cast<long long>(blockIdx.x) * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);
  float items[Items];
  if (valid == tile) {
    Load(temp.load).Load(in + base, items);
  } else {
    Load(temp.load).Load(in + base, items, valid, 0.0f);
  }
  float own = 0.0f;
#pragma unroll
  for (int i = 0; i < Items; ++i) own += items[i];
  __syncthreads();  // (temp: the load's, then the reduction's)
  const float pre = earlier_tiles<PrefixLoads>(own, sums, temp.reduce, prefix);
  Scan(temp.scan).InclusiveScan(items, items, pre, cuda::std::plus<float>{});  // pre folded in first
  __syncthreads();
  if (valid == tile) {
    Store(temp.store).Store(out + base, items);
  } else {
    Store(temp.store).Store(out + base, items, valid);
  }
}

// The same with the tile kept in shared memory, so that a thread holds no items in registers
// across the barrier and a wave takes as many tiles as shared memory holds (six 32 KiB tiles an
// SM: 2^22.63 floats on 132 SMs). The tile arrives by cp.async (16 bytes a copy, in the order
// of the input: coalesced), each thread's run of 32 floats in a row of 128 bytes whose 16-byte
// chunks are XOR-swizzled by the row (chunk j of row r at j ^ (r % 8)): the copies' writes and
// the runs' LDS.128 reads meet no bank conflict. Each thread sums its run, the tile's sum goes
// out, the barrier, the prefix (earlier_tiles), then an exclusive block scan of the runs' sums seeds
// each run's scan in place, and the tile goes out in the input's order again.
template <int MinBlocks, int PrefixLoads = 4>
__global__ void __launch_bounds__(threads, MinBlocks)
    barrier_scan_smem(const float* __restrict__ in, float* __restrict__ sums, float* __restrict__ out, long long n) {
  constexpr int items = 32;          // a thread's run
  constexpr int chunks = items / 4;  // its 16-byte chunks
  constexpr int tile = threads * items;
  using Reduce = cub::BlockReduce<float, threads>;
  using Scan = cub::BlockScan<float, threads>;
  __shared__ alignas(16) float rows[threads * items];
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ float prefix;
  // Chunk j of row r: floats r * items + ((j ^ (r % 8)) * 4) ... + 3.
  const auto at = [](int r, int j) { return r * items + ((j ^ (r & 7)) << 2); };
  const long long base = static_cast<long long>(blockIdx.x) * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);
#pragma unroll
  for (int i = 0; i < chunks; ++i) {
    const int c = i * threads + static_cast<int>(threadIdx.x);  // the tile's chunk c
    float* dst = rows + at(c / chunks, c % chunks);
    if (valid == tile) {
      tilecraft::arch::cp_async_cg<16>(dst, in + base + 4 * c);
    } else {
      const int left = valid - 4 * c;  // floats of this chunk inside the input
      const int take = left < 0 ? 0 : left > 4 ? 4 : left;
      tilecraft::arch::cp_async_cg_zfill<16>(dst, take > 0 ? in + base + 4 * c : in,
                                             static_cast<unsigned>(take * sizeof(float)));
    }
  }
  tilecraft::arch::cp_async_commit();
  tilecraft::arch::cp_async_wait_all();
  __syncthreads();
  const int r = static_cast<int>(threadIdx.x);
  float own = 0.0f;
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    const float4 v = *reinterpret_cast<const float4*>(rows + at(r, j));
    own += ((v.x + v.y) + (v.z + v.w));
  }
  const float pre = earlier_tiles<PrefixLoads>(own, sums, temp.reduce, prefix);
  float running = 0.0f;
  Scan(temp.scan).ExclusiveScan(own, running, pre, cuda::std::plus<float>{});  // pre + the runs before
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    float4* v = reinterpret_cast<float4*>(rows + at(r, j));
    float4 x = *v;
    x.x = running += x.x;
    x.y = running += x.y;
    x.z = running += x.z;
    x.w = running += x.w;
    *v = x;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < chunks; ++i) {
    const int c = i * threads + static_cast<int>(threadIdx.x);
    const float4 x = *reinterpret_cast<const float4*>(rows + at(c / chunks, c % chunks));
    if (valid == tile) {
      reinterpret_cast<float4*>(out + base)[c] = x;
    } else {
      const float e[4] = {x.x, x.y, x.z, x.w};
      for (int k = 0; k < 4 && 4 * c + k < valid; ++k) out[base + 4 * c + k] = e[k];
    }
  }
}

// The blocks of Kernel (threads a block, static shared memory only) the device holds at once.
template <auto Kernel>
long long resident_blocks() {
  static long long known = 0;  // (asked once: the launches below are timed)
  if (known > 0) return known;
  int per_sm = 0, sms = 0, dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, 0));
  return known = static_cast<long long>(per_sm) * sms;
}

// Launches Kernel over n floats in tiles of TileItems, cooperatively; false where its tiles do
// not fit one wave.
template <auto Kernel, long long TileItems>
bool cooperative_scan(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  const long long tiles = (n + TileItems - 1) / TileItems;
  if (tiles > resident_blocks<Kernel>()) return false;
  CK(tilecraft::detail::launch_cooperative(Kernel, dim3(static_cast<unsigned>(tiles)), dim3(threads), 0, s, in, sums,
                                           out, n));
  return true;
}

// The forms: barrier_scan<Items, MinBlocks> and barrier_scan_smem<MinBlocks>.
template <int Items, int MinBlocks>
bool barrier(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  return cooperative_scan<barrier_scan<Items, MinBlocks>, threads * Items>(in, sums, out, n, s);
}
template <int MinBlocks>
bool barrier_smem(const float* in, float* sums, float* out, long long n, cudaStream_t s) {
  return cooperative_scan<barrier_scan_smem<MinBlocks>, threads * 32>(in, sums, out, n, s);
}

}  // namespace

int main(int argc, char** argv) {
  // Sizes as log2 of the item count, fractions allowed (22.32: about 5 Mi).
  std::vector<double> logs;
  for (int i = 1; i < argc; ++i) logs.push_back(std::atof(argv[i]));
  if (logs.empty()) logs = {20, 21, 21.58, 22, 22.04, 22.32, 22.58};
  int dev = 0, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(l2);
  char* flush = nullptr;
  CK(cudaMalloc(&flush, flush_bytes));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  std::printf(
      "resident blocks: %lld of 256 x 32 (4 an SM asked), %lld of 256 x 32 (3), %lld of 256 x 16 (8), %lld of 256 x "
      "32 in shared memory (6)\n",
      resident_blocks<barrier_scan<32, 4>>(), resident_blocks<barrier_scan<32, 3>>(),
      resident_blocks<barrier_scan<16, 8>>(), resident_blocks<barrier_scan_smem<6>>());
  std::printf("%-8s %9s %9s %14s %14s %14s %14s %14s %14s %14s   (us; ratio to CUB)\n", "n", "memcpy", "cub", "library",
              "library 1p", "library 2p", "256x32 (4)", "256x32 (3)", "256x16 (8)", "smem 256x32");
  for (double lg : logs) {
    const long long n = std::llround(std::pow(2.0, lg));
    std::vector<float> h(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) h[static_cast<std::size_t>(i)] = static_cast<float>(index_hash(i) & 1u);
    float *in, *out, *ref, *sums;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMalloc(&ref, n * sizeof(float)));
    CK(cudaMalloc(&sums, (n / 2048 + 1) * sizeof(float)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, lib_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, ref, n));
    CK(tilecraft::inclusive_scan(nullptr, lib_bytes, in, out, n, tilecraft::Sum{}));
    void *cub_temp, *lib_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    CK(cudaMalloc(&lib_temp, lib_bytes));
    CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, ref, n, s));
    std::vector<float> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(want.data(), ref, n * sizeof(float), cudaMemcpyDeviceToHost));
    // Each form once on a poisoned output, compared with CUB's; false: it does not apply here.
    auto verified = [&](const char* what, auto run) {
      CK(cudaMemsetAsync(out, 0xA5, n * sizeof(float), s));
      if (!run()) return false;
      CK(cudaStreamSynchronize(s));
      CK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
      long long bad = 0;
      for (long long i = 0; i < n; ++i) bad += got[static_cast<std::size_t>(i)] != want[static_cast<std::size_t>(i)];
      if (bad != 0) std::printf("MISMATCH %s at 2^%.2f: %lld elements\n", what, lg, bad);
      return true;
    };
    const auto library = [&] {
      CK(tilecraft::inclusive_scan(lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, s));
      return true;
    };
    // The library's own two passes, forced at every size (its default dispatch takes them where
    // input and output fit half the L2).
    const auto library_two_pass = [&] {
      CK((tilecraft::detail::scan_run<tilecraft::detail::DefaultScanPolicyLarge<float, float>, false,
                                      tilecraft::detail::ScanForms::two_pass>(lib_temp, lib_bytes, in, out, n,
                                                                              tilecraft::Sum{}, 0.0f, s)));
      return true;
    };
    // Its single pass alone (its dispatch before the one-wave form).
    const auto library_one_pass = [&] {
      CK((tilecraft::detail::scan_run<tilecraft::detail::DefaultScanPolicyLarge<float, float>, false>(
          lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, 0.0f, s)));
      return true;
    };
    const auto variants = std::make_tuple(
        library_one_pass, library_two_pass, [&] { return barrier<32, 4>(in, sums, out, n, s); },
        [&] { return barrier<32, 3>(in, sums, out, n, s); }, [&] { return barrier<16, 8>(in, sums, out, n, s); },
        [&] { return barrier_smem<6>(in, sums, out, n, s); });
    verified("library", library);
    bool applies[std::tuple_size_v<decltype(variants)>] = {};
    {
      const char* names[] = {"library 1p", "library 2p", "256x32 (4)", "256x32 (3)", "256x16 (8)", "smem 256x32"};
      static_assert(std::size(names) == std::tuple_size_v<decltype(variants)>);
      int k = 0;
      std::apply([&](auto&... v) { ((applies[k] = verified(names[k], v), ++k), ...); }, variants);
    }
    CK(cudaGetLastError());
    const float t_copy =
        median_us([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice, s)); }, flush,
                  flush_bytes, s, 21);
    const float t_cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s)); }, flush,
                                  flush_bytes, s, 21);
    const float t_lib = median_us([&] { library(); }, flush, flush_bytes, s, 21);
    std::printf("2^%-6.2f %9.2f %9.2f %7.2f (%.3f)", lg, t_copy, t_cub, t_lib, t_cub / t_lib);
    int k = 0;
    const auto row = [&](auto& v) {
      if (!applies[k++]) {
        std::printf(" %14s", "(> one wave)");
        return;
      }
      const float t = median_us([&] { v(); }, flush, flush_bytes, s, 21);
      std::printf(" %7.2f (%.3f)", t, t_cub / t);
    };
    std::apply([&](auto&... v) { (row(v), ...); }, variants);
    std::printf("\n");
    for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(ref), static_cast<void*>(sums),
                    cub_temp, lib_temp})
      CK(cudaFree(p));
  }
  return 0;
}
