// The single pass with each tile split between shared memory and registers: more bytes resident
// an SM while tiles wait for their prefixes. The single pass holds six 32 KiB tiles an SM in
// shared memory (its 128 x 64 floats), and a tile spends about half its life waiting in the
// look-back (benchmarks/TUNING.md, "Where a tile's look-back waits"), so what an SM has in
// flight is bounded by shared memory. The split one wave's tile (scan_one_wave_split_kernel: a
// 64 KiB shared part, scan_tile_two_pass, and a 32 KiB register part, three an SM) holds 288 KiB
// an SM; here the same tile takes its ticket from the counter and its prefix from the
// decoupled look-back instead of a grid barrier: the shared part's block scan calls the
// look-back with the whole tile's aggregate (shared part, then register part), and the register
// part is scanned after it from the prefix plus the shared part's fold. Inclusive sums only.
// Columns: the library's default dispatch, its single pass forced ("1p"), the split single pass
// without a prefetch, with the tile one SM's worth of tickets ahead prefetched line by line
// ("lines") or by one bulk prefetch ("bulk"), CUB's InclusiveSum and memcpy, in one process; L2
// flushed before each run, medians of 15, us (ratio to CUB). Float inputs are 0 / 1 (exact sums
// below 2^24; above, compared with CUB's within 1e-5 relative), int inputs small (exact: every
// result must equal CUB's). Not built by CMake; run.sh builds and runs it on the GPU machine.
#include <cub/cub.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include <tilecraft/arch/prefetch.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/launch.cuh>

#include "../experiment_util.cuh"

namespace tilecraft::detail {

// The look-back as scan_tile_two_pass's prefix for a split tile: the tile's aggregate is the
// shared part's (what the block scan passes the callback) op the register part's (thread 0's
// registers_sum); thread 0's registers_prefix gets what precedes the register part.
template <class Acc, class Status, class Op>
struct SplitLookBackPrefix {
  const Status& status;
  Op op;
  Acc* buf;
  const Acc& registers_sum;  // thread 0's
  bool registers;            // the tile has a register part
  Acc& registers_prefix;     // thread 0's: set by first or exclusive
  __device__ void arrive(std::int64_t, const Acc&) const {}
  __device__ void first(const Acc& passed_on) const {
    if (threadIdx.x == 0) {
      registers_prefix = passed_on;
      status.publish(0, tile_inclusive, registers ? static_cast<Acc>(op(passed_on, registers_sum)) : passed_on);
    }
  }
  struct Callback {
    LookBackCallback<Acc, Status, Op, reassociable_v<Op, Acc>> inner;
    const SplitLookBackPrefix& of;
    __device__ Acc operator()(const Acc& shared_aggregate) {
      // (Lane 0 of warp 0, thread 0, holds the aggregate the look-back publishes.)
      const Acc whole = of.registers ? static_cast<Acc>(of.op(shared_aggregate, of.registers_sum)) : shared_aggregate;
      const Acc prefix = inner(whole);
      if (threadIdx.x == 0) of.registers_prefix = static_cast<Acc>(of.op(prefix, shared_aggregate));
      return prefix;
    }
  };
  template <class Temp>
  __device__ Acc exclusive(Temp& temp, std::int64_t tile, const Acc& total) const {
    Callback callback{{status, tile, op, buf, nullptr, nullptr, true}, *this};
    return block_exclusive_scan(temp, total, op, callback);
  }
};

// Prefetch: 0 none, 1 the tile prefetch_ahead tickets on line by line, 2 by one bulk prefetch.
template <class Shared, class Registers, int MinBlocks, class In, class Out, class Acc, class Op, int Prefetch>
__global__ void __launch_bounds__(Shared::threads, MinBlocks)
    split_pass_kernel(const In* in, Out* out, std::int64_t n, Op op, Acc init, TileStatus<Acc> status,
                      unsigned* counter, bool vector, std::int64_t prefetch_ahead) {
  constexpr int threads = Shared::threads;
  using SharedIn = TileStage<In, threads, Shared::items>;
  using RegistersIn = TileStage<In, threads, Registers::items>;
  constexpr int rows = RegistersIn::chunks_per_thread;
  constexpr int per_vector = static_cast<int>(16 / sizeof(In));
  static_assert(Registers::threads == threads && sizeof(In) == sizeof(Out) && two_pass_tile<Shared, In, Out, Acc> &&
                SharedIn::chunks_per_thread > 8 && RegistersIn::chunked);
  extern __shared__ uint4 split_stage[];
  unsigned char* const stage = reinterpret_cast<unsigned char*>(split_stage);
  __shared__ BlockScanStorage<Acc, threads, Shared::block_algorithm> temp;
  __shared__ SharedSlot<Acc> warp_buf[threads / warp_threads];
  __shared__ SharedSlot<Acc> part[rows * threads / warp_threads];
  __shared__ SharedSlot<Acc> look_back_buf[far_windows<Acc> * warp_threads];
  __shared__ unsigned ticket;
  arch::wait_for_dependencies();  // (the reset of the counter and the states)
  if (threadIdx.x == 0) ticket = atomicAdd(counter, 1u);
  __syncthreads();
  constexpr std::int64_t shared_items = Shared::tile_items, tile_items = shared_items + Registers::tile_items;
  const std::int64_t tile = ticket, base = tile * tile_items;
  if constexpr (Prefetch > 0) {
    const std::int64_t later = (tile + prefetch_ahead) * tile_items;
    if (later + tile_items <= n) {
      constexpr std::size_t bytes = static_cast<std::size_t>(tile_items) * sizeof(In);
      if constexpr (Prefetch == 1) {
        arch::prefetch_l2_block<threads, bytes>(in + later, static_cast<int>(threadIdx.x));
      } else {
        arch::prefetch_l2_bulk<threads, bytes>(in + later, static_cast<int>(threadIdx.x));
      }
    }
  }
  const std::int64_t left = n - base, registers_left = left - shared_items;
  const int shared_valid = left < shared_items ? static_cast<int>(left) : static_cast<int>(shared_items);
  const int registers_valid = registers_left <= 0                      ? 0
                              : registers_left < Registers::tile_items ? static_cast<int>(registers_left)
                                                                       : Registers::tile_items;
  const int t = static_cast<int>(threadIdx.x);
  SharedIn::template issue_in<Shared::hint>(vector, in + base, shared_valid, stage);
  copy_async_commit();
  uint4 w[rows];
  Acc registers_sum{};
  if (registers_valid > 0) {
    const In* src = in + base + shared_items;
    if (vector && registers_valid == Registers::tile_items) {
      const uint4* g = reinterpret_cast<const uint4*>(src);
#pragma unroll
      for (int r = 0; r < rows; ++r) w[r] = load_global_word<Registers::hint>(g + r * threads + t);
    } else {
#pragma unroll
      for (int r = 0; r < rows; ++r) {
        In x[per_vector];
#pragma unroll
        for (int j = 0; j < per_vector; ++j) {
          const int e = (r * threads + t) * per_vector + j;
          x[j] = src[e < registers_valid ? e : registers_valid - 1];
        }
        std::memcpy(&w[r], x, 16);
      }
    }
    registers_sum = fold_striped_rows<threads, rows, In>(w, op, slots<Acc>(part));
  }
  copy_async_wait<0>();
  __syncthreads();
  Acc registers_prefix{};
  const SplitLookBackPrefix<Acc, TileStatus<Acc>, Op> prefix_of{
      status, op, slots<Acc>(look_back_buf), registers_sum, registers_valid > 0, registers_prefix};
  scan_tile_two_pass<Shared, false, true>(vector, in + base, out + base, shared_valid, tile, op, init, prefix_of, stage,
                                          temp, slots<Acc>(warp_buf));
  if (registers_valid == 0) return;
  __syncthreads();  // (every thread done with the shared part's buffer)
#pragma unroll
  for (int r = 0; r < rows; ++r) *RegistersIn::chunk(stage, r * threads + t) = w[r];
  __syncthreads();
  uint4 v[rows];
#pragma unroll
  for (int k = 0; k < rows; ++k) v[k] = *RegistersIn::chunk(stage, t * rows + k);
  Acc a[Registers::items];
  split_vectors_to<In>(v, a);
  KnownPrefix<Acc> prefix{registers_prefix};
  block_inclusive_scan(temp, a, a, op, prefix);
  store_tile_as<Registers>(vector, out + base + shared_items, 0, registers_valid, stage, a);
}

}  // namespace tilecraft::detail

namespace {

namespace d = tilecraft::detail;

template <class T>
struct Split {
  using Shared = d::DefaultScanPolicyOneWaveSplit<T, T>;
  using Registers = d::DefaultScanPolicyOneWave<T, T>;
  static constexpr long long tile_items = Shared::tile_items + Registers::tile_items;
  static constexpr std::size_t bytes = d::stage_bytes_of<Shared, T, T>();
  template <int Prefetch>
  static constexpr auto kernel = d::split_pass_kernel<Shared, Registers, 3, T, T, T, tilecraft::Sum, Prefetch>;
  static std::size_t temp_bytes(long long n) {
    return d::scan_header_bytes + d::tile_status_bytes<T>((n + tile_items - 1) / tile_items);
  }
  template <int Prefetch>
  static void run(const T* in, T* out, long long n, void* temp, long long ahead, cudaStream_t s) {
    const long long tiles = (n + tile_items - 1) / tile_items;
    auto* counter = static_cast<unsigned*>(temp);
    const d::TileStatus<T> status(static_cast<unsigned char*>(temp) + d::scan_header_bytes, tiles);
    CK(d::launch_kernel(d::scan_init_kernel<d::TileStatus<T>>, dim3(static_cast<unsigned>((tiles + 255) / 256)),
                        dim3(256), 0, s, status, static_cast<std::int64_t>(tiles), counter));
    CK(d::opt_in_once(kernel<Prefetch>, bytes));
    CK(d::launch_dependent(kernel<Prefetch>, dim3(static_cast<unsigned>(tiles)), dim3(Shared::threads), bytes, s, in,
                           out, static_cast<std::int64_t>(n), tilecraft::Sum{}, T{}, status, counter, true,
                           static_cast<std::int64_t>(ahead)));
  }
};

template <class T>
void measure(const char* name, const std::vector<double>& logs, L2Flush flush, int sms) {
  std::printf(
      "%s; resident split tiles: %d an SM (%zu bytes of dynamic shared memory)\n", name,
      [] {
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Split<T>::template kernel<0>, 256, Split<T>::bytes));
        return per_sm;
      }(),
      Split<T>::bytes);
  std::printf("%-8s %9s %9s %15s %15s %15s %15s %15s   (us; ratio to CUB)\n", "n", "memcpy", "cub", "library",
              "library 1p", "split", "split lines", "split bulk");
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  for (double lg : logs) {
    const long long n = std::llround(std::pow(2.0, lg));
    std::vector<T> h(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) {
      h[static_cast<std::size_t>(i)] =
          std::is_floating_point_v<T> ? static_cast<T>(index_hash(i) & 1u) : static_cast<T>(index_hash(i) % 7u) - T(3);
    }
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, lib_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, n));
    CK(tilecraft::inclusive_scan(nullptr, lib_bytes, in, out, n, tilecraft::Sum{}));
    const std::size_t split_bytes = Split<T>::temp_bytes(n);
    void *cub_temp, *lib_temp, *split_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    CK(cudaMalloc(&lib_temp, lib_bytes));
    CK(cudaMalloc(&split_temp, split_bytes));
    std::vector<T> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
    CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(want.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    const auto verify = [&](const char* what, auto run) {
      for (int pass = 0; pass < 2; ++pass) {
        CK(cudaMemsetAsync(out, 0xA5, n * sizeof(T), s));
        run();
        CK(cudaStreamSynchronize(s));
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
        long long bad = 0;
        for (long long i = 0; i < n; ++i) {
          const double a = static_cast<double>(got[static_cast<std::size_t>(i)]);
          const double b = static_cast<double>(want[static_cast<std::size_t>(i)]);
          bad += std::is_floating_point_v<T> ? !(std::fabs(a - b) <= 1e-5 * std::fabs(b)) : a != b;
        }
        if (bad != 0) std::printf("MISMATCH %s at 2^%.2f (run %d): %lld elements\n", what, lg, pass, bad);
      }
    };
    const auto library = [&] { CK(tilecraft::inclusive_scan(lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, s)); };
    const auto one_pass = [&] {
      CK((d::scan_run<d::DefaultScanPolicyLarge<T, T>, false>(lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, T{},
                                                              s)));
    };
    const auto split0 = [&] { Split<T>::template run<0>(in, out, n, split_temp, 0, s); };
    const auto split1 = [&] { Split<T>::template run<1>(in, out, n, split_temp, sms, s); };
    const auto split2 = [&] { Split<T>::template run<2>(in, out, n, split_temp, sms, s); };
    verify("library", library);
    verify("library 1p", one_pass);
    verify("split", split0);
    verify("split lines", split1);
    verify("split bulk", split2);
    const auto time = [&](auto f) { return median_us(f, flush.ptr, flush.bytes, s, 15); };
    const float t_copy = time([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, s)); });
    const float t_cub = time([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s)); });
    const float t[] = {time(library), time(one_pass), time(split0), time(split1), time(split2)};
    std::printf("2^%-6.2f %9.2f %9.2f", lg, t_copy, t_cub);
    for (float x : t) std::printf("  %7.2f (%.3f)", x, t_cub / x);
    std::printf("   memcpy ratio of the best split: %.3f\n", t_copy / std::min({t[2], t[3], t[4]}));
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
    CK(cudaFree(lib_temp));
    CK(cudaFree(split_temp));
  }
  CK(cudaStreamDestroy(s));
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<double> logs = log2_sizes(argc, argv, {23.5, 24, 24.5, 25, 26, 27, 28});
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const L2Flush flush = l2_flush_buffer();
  measure<float>("f32 inclusive sums", logs, flush, sms);
  measure<int>("i32 inclusive sums", logs, flush, sms);
  return 0;
}
