// Scans. Whole arrays: tilecraft::inclusive_scan against cub::DeviceScan::InclusiveSum and
// against cudaMemcpyAsync of the same bytes (read + written): f32 and i32 from 2^16 to 2^28,
// i8 and i16 (into their own type) and i64 (exclusive, as CUB's ExclusiveSum) at 2^28.
// Stream compaction: select_if keeping half of 2^28 floats against cub::DeviceSelect::If, into a
// second array and in place (select_f32_inplace). In a
// kernel: block_scan against cub::BlockScan in otherwise identical kernels (128 ... 1024
// threads x 1, 4, 16 items). Tuning variants (other tile shapes, block algorithms, cache
// hints) are compiled only with -DTILECRAFT_BENCH_VARIANTS=ON (CMake) and registered only when
// the environment variable TILECRAFT_BENCH_VARIANTS is set.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <tilecraft/block/block_scan.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/util/functional.cuh>

#include "harness.cuh"

using namespace tilecraft::bench;

namespace {

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  if constexpr (std::is_same_v<T, int>) return "i32";
  if constexpr (std::is_same_v<T, std::int8_t>) return "i8";
  if constexpr (std::is_same_v<T, std::int16_t>) return "i16";
  if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
  return "x";
}

// Values in [1, 4) (integers: 1, 2, 3): integers stay far from overflow in 2^28-element sums
// of i32/i64; i8/i16 wrap, as their natural-type scans do.
template <class T>
void fill(T* d, std::size_t n) {
  fill_random(d, n, 1.0, 4.0, 5);
}

enum class Impl { memcpy, cub, tilecraft };

// i64 runs the exclusive scan (CUB's ExclusiveSum), every other type the inclusive one.
template <class T>
inline constexpr bool exclusive_bench = std::is_same_v<T, std::int64_t>;

template <class T, class Policy = void>
void scan_bench(benchmark::State& state, Impl impl, const std::string& name) {
  const std::int64_t n = state.range(0);
  const auto bytes = static_cast<std::size_t>(n) * sizeof(T);
  DeviceMemory in(bytes), out(bytes);
  fill(in.as<T>(), static_cast<std::size_t>(n));
  const std::string family = std::string("scan_") + type_name<T>();
  const std::string size = std::to_string(n);
  const Measure m{2.0 * static_cast<double>(bytes), 0};
  switch (impl) {
    case Impl::memcpy:
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(cudaMemcpyAsync(out.as<void>(), in.as<void>(), bytes, cudaMemcpyDeviceToDevice, s));
          },
          m, family + "/memcpy/" + size);
      break;
    case Impl::cub: {
      std::size_t temp_bytes = 0;
      if constexpr (exclusive_bench<T>) {
        TILECRAFT_BENCH_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in.as<T>(), out.as<T>(), n));
      } else {
        TILECRAFT_BENCH_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in.as<T>(), out.as<T>(), n));
      }
      DeviceMemory temp(temp_bytes);
      time_it(
          state,
          [&](cudaStream_t s) {
            if constexpr (exclusive_bench<T>) {
              TILECRAFT_BENCH_CHECK(
                  cub::DeviceScan::ExclusiveSum(temp.as<void>(), temp_bytes, in.as<T>(), out.as<T>(), n, s));
            } else {
              TILECRAFT_BENCH_CHECK(
                  cub::DeviceScan::InclusiveSum(temp.as<void>(), temp_bytes, in.as<T>(), out.as<T>(), n, s));
            }
          },
          m, family + "/cub/" + size);
      break;
    }
    case Impl::tilecraft: {
      std::size_t temp_bytes = 0;
      auto run = [&](void* temp, cudaStream_t s) {
        if constexpr (exclusive_bench<T>) {
          return tilecraft::exclusive_scan<Policy>(temp, temp_bytes, in.as<T>(), out.as<T>(), n, tilecraft::Sum{}, T{0},
                                                   s);
        } else {
          return tilecraft::inclusive_scan<Policy>(temp, temp_bytes, in.as<T>(), out.as<T>(), n, tilecraft::Sum{}, s);
        }
      };
      TILECRAFT_BENCH_CHECK(run(nullptr, nullptr));
      DeviceMemory temp(temp_bytes);
      (void)name;
      time_it(
          state, [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(run(temp.as<void>(), s)); }, m, {},
          family + "/cub/" + size);
      break;
    }
  }
}

template <class T, class Policy = void>
void register_scan(const char* impl_name, Impl impl, std::int64_t n) {
  const std::string name = std::string("scan_") + type_name<T>() + "/" + impl_name + "/" + std::to_string(n);
  benchmark::RegisterBenchmark(name.c_str(),
                               [impl, name](benchmark::State& s) { scan_bench<T, Policy>(s, impl, name); })
      ->Arg(n)
      ->UseManualTime()
      ->MinTime(0.05)
      ->Unit(benchmark::kMicrosecond);
}

template <class T>
void register_scan_family(std::int64_t n) {
  register_scan<T>("memcpy", Impl::memcpy, n);
  register_scan<T>("cub", Impl::cub, n);
  register_scan<T>("tilecraft", Impl::tilecraft, n);
}

// select_if keeping the half of the floats below 2.5 (values uniform in [1, 4)... [1, 4) with
// threshold 2.5 keeps half).
struct BelowHalf {
  __host__ __device__ bool operator()(float v) const { return v < 2.5f; }
};

//! `in_place`: the array is compacted where it lies (select_if with d_out == d_in, CUB's
//! in-place DeviceSelect::If), restored from a pristine copy before every run, outside the
//! timed region.
template <class Policy = void>
void select_bench(benchmark::State& state, bool tilecraft_impl, bool in_place = false) {
  const std::int64_t n = state.range(0);
  const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
  DeviceMemory in(bytes), out(in_place ? 0 : bytes), pristine(in_place ? bytes : 0), count(sizeof(std::int64_t));
  fill(in.as<float>(), static_cast<std::size_t>(n));
  if (in_place) TILECRAFT_BENCH_CHECK(cudaMemcpy(pristine.as<void>(), in.as<void>(), bytes, cudaMemcpyDeviceToDevice));
  float* const dst = in_place ? in.as<float>() : out.as<float>();
  auto restore = [&](cudaStream_t s) {
    if (in_place) {
      TILECRAFT_BENCH_CHECK(cudaMemcpyAsync(in.as<void>(), pristine.as<void>(), bytes, cudaMemcpyDeviceToDevice, s));
    }
  };
  const std::string family = in_place ? "select_f32_inplace" : "select_f32";
  const std::string key = family + "/cub/" + std::to_string(n);
  // Bytes moved: every item read, about half written.
  const Measure m{1.5 * static_cast<double>(bytes), 0};
  std::size_t temp_bytes = 0;
  if (!tilecraft_impl) {
    auto cub_select = [&](void* temp, cudaStream_t s) {
      return in_place
                 ? cub::DeviceSelect::If(temp, temp_bytes, in.as<float>(), count.as<std::int64_t>(), n, BelowHalf{}, s)
                 : cub::DeviceSelect::If(temp, temp_bytes, in.as<float>(), dst, count.as<std::int64_t>(), n,
                                         BelowHalf{}, s);
    };
    TILECRAFT_BENCH_CHECK(cub_select(nullptr, cudaStream_t{}));
    DeviceMemory temp(temp_bytes);
    time_it_prepared(
        state, restore, [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(cub_select(temp.as<void>(), s)); }, m, key);
  } else {
    TILECRAFT_BENCH_CHECK(tilecraft::select_if<Policy>(nullptr, temp_bytes, in.as<float>(), dst,
                                                       count.as<std::int64_t>(), n, BelowHalf{}));
    DeviceMemory temp(temp_bytes);
    time_it_prepared(
        state, restore,
        [&](cudaStream_t s) {
          TILECRAFT_BENCH_CHECK(tilecraft::select_if<Policy>(temp.as<void>(), temp_bytes, in.as<float>(), dst,
                                                             count.as<std::int64_t>(), n, BelowHalf{}, s));
        },
        m, {}, key);
  }
}

// block_scan in a loop: each of `scan_rounds` scans depends on the previous one's output, so neither
// compiler can hoist or merge them; only the scan differs between the kernels.
constexpr int scan_rounds = 32;

template <class T, int Threads, int Items, tilecraft::BlockScanAlgorithm Algo>
__global__ void __launch_bounds__(Threads) block_scan_tilecraft(const T* in, T* out) {
  __shared__ tilecraft::BlockScanStorage<T, Threads, Algo> temp;
  T v[Items];
  for (int j = 0; j < Items; ++j) v[j] = in[(blockIdx.x * Threads + threadIdx.x) * Items + j];
  for (int r = 0; r < scan_rounds; ++r) {
    tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{});
    __syncthreads();
    v[0] += static_cast<T>(1);
  }
  T acc{};
  for (int j = 0; j < Items; ++j) acc += v[j];
  out[blockIdx.x * Threads + threadIdx.x] = acc;
}

template <class T, int Threads, int Items>
__global__ void __launch_bounds__(Threads) block_scan_cub(const T* in, T* out) {
  using BlockScan = cub::BlockScan<T, Threads>;
  __shared__ typename BlockScan::TempStorage temp;
  T v[Items];
  for (int j = 0; j < Items; ++j) v[j] = in[(blockIdx.x * Threads + threadIdx.x) * Items + j];
  for (int r = 0; r < scan_rounds; ++r) {
    BlockScan(temp).InclusiveSum(v, v);
    __syncthreads();
    v[0] += static_cast<T>(1);
  }
  T acc{};
  for (int j = 0; j < Items; ++j) acc += v[j];
  out[blockIdx.x * Threads + threadIdx.x] = acc;
}

template <class T, int Threads, int Items, tilecraft::BlockScanAlgorithm Algo>
void block_scan_bench(benchmark::State& state, bool tilecraft_impl) {
  int sms = 0;
  TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * (2048 / Threads) * 4;
  const auto elems = static_cast<std::size_t>(blocks) * Threads * Items;
  DeviceMemory in(elems * sizeof(T)), out(static_cast<std::size_t>(blocks) * Threads * sizeof(T));
  fill_random(in.as<T>(), elems, 1.0, 100.0, 4);
  const std::string key =
      std::string("block_scan_") + type_name<T>() + "/" + std::to_string(Threads) + "x" + std::to_string(Items);
  double seconds = 0;
  if (!tilecraft_impl) {
    seconds = time_it(
        state,
        [&](cudaStream_t s) { block_scan_cub<T, Threads, Items><<<blocks, Threads, 0, s>>>(in.as<T>(), out.as<T>()); },
        Measure{}, key, {}, false);
  } else {
    seconds = time_it(
        state,
        [&](cudaStream_t s) {
          block_scan_tilecraft<T, Threads, Items, Algo><<<blocks, Threads, 0, s>>>(in.as<T>(), out.as<T>());
        },
        Measure{}, {}, key, false);
  }
  if (seconds > 0)
    state.counters["Gscans/s"] = benchmark::Counter(static_cast<double>(blocks) * scan_rounds * 1e-9 / seconds);
}

template <class T, int Threads, int Items>
void register_block_scan() {
  using A = tilecraft::BlockScanAlgorithm;
  const std::string tail = std::to_string(Threads) + "x" + std::to_string(Items);
  const std::string family = std::string("block_scan_") + type_name<T>();
  auto reg = [&](const std::string& impl, void (*fn)(benchmark::State&, bool), bool tc) {
    benchmark::RegisterBenchmark((family + "/" + impl + "/" + tail).c_str(), fn, tc)
        ->UseManualTime()
        ->MinTime(0.05)
        ->Unit(benchmark::kMicrosecond);
  };
  reg("cub", block_scan_bench<T, Threads, Items, A::automatic>, false);
  reg("tilecraft", block_scan_bench<T, Threads, Items, A::automatic>, true);
#if defined(TILECRAFT_BENCH_VARIANTS_BUILT)
  if (std::getenv("TILECRAFT_BENCH_VARIANTS") != nullptr) {
    reg("tc_warp_scans", block_scan_bench<T, Threads, Items, A::warp_scans>, true);
    reg("tc_two_level", block_scan_bench<T, Threads, Items, A::two_level>, true);
    reg("tc_raking", block_scan_bench<T, Threads, Items, A::raking>, true);
  }
#endif
}

const bool scan_registered = [] {
  for (int e : {16, 20, 22, 23, 24, 26, 28}) register_scan_family<float>(std::int64_t{1} << e);
  for (int e : {16, 20, 22, 23, 24, 26, 28}) register_scan_family<int>(std::int64_t{1} << e);
  register_scan_family<std::int8_t>(std::int64_t{1} << 28);
  register_scan_family<std::int16_t>(std::int64_t{1} << 28);
  register_scan_family<std::int64_t>(std::int64_t{1} << 28);
  for (bool in_place : {false, true}) {
    for (bool tc : {false, true}) {
      const std::string name = std::string(in_place ? "select_f32_inplace/" : "select_f32/") +
                               (tc ? "tilecraft/" : "cub/") + std::to_string(1 << 28);
      benchmark::RegisterBenchmark(name.c_str(), [tc, in_place](benchmark::State& s) { select_bench(s, tc, in_place); })
          ->Arg(std::int64_t{1} << 28)
          ->UseManualTime()
          ->MinTime(0.05)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  register_block_scan<float, 128, 1>();
  register_block_scan<float, 128, 4>();
  register_block_scan<float, 128, 16>();
  register_block_scan<float, 256, 1>();
  register_block_scan<float, 256, 4>();
  register_block_scan<float, 256, 16>();
  register_block_scan<float, 512, 1>();
  register_block_scan<float, 512, 4>();
  register_block_scan<float, 512, 16>();
  register_block_scan<float, 1024, 1>();
  register_block_scan<float, 1024, 4>();
  register_block_scan<float, 1024, 16>();
  register_block_scan<int, 256, 4>();
  register_block_scan<int, 1024, 4>();

  // Tile shapes and cache hints of the device scan (benchmarks/TUNING.md, "Scan"), reporting
  // the ratio to CUB when its benchmark of the same size ran first:
  //   TILECRAFT_BENCH_VARIANTS=1 tilecraft_bench --benchmark_filter='scan_f32/(cub|tilecraft|tc_).*'
#if defined(TILECRAFT_BENCH_VARIANTS_BUILT)
  if (std::getenv("TILECRAFT_BENCH_VARIANTS") != nullptr) {
    using tilecraft::BlockScanAlgorithm;
    using tilecraft::CacheHint;
    using tilecraft::ScanPolicy;
    for (int e : {16, 20, 24, 28}) {
      const std::int64_t n = std::int64_t{1} << e;
      register_scan<float, ScanPolicy<512, 16>>("tc_512x16", Impl::tilecraft, n);
      register_scan<float, ScanPolicy<256, 24>>("tc_256x24", Impl::tilecraft, n);
      register_scan<float, ScanPolicy<256, 40>>("tc_256x40", Impl::tilecraft, n);
      register_scan<float, ScanPolicy<192, 40>>("tc_192x40", Impl::tilecraft, n);
      register_scan<float, ScanPolicy<128, 64>>("tc_128x64", Impl::tilecraft, n);
      register_scan<float, ScanPolicy<256, 8>>("tc_256x8", Impl::tilecraft, n);
      register_scan<float, ScanPolicy<256, 32, BlockScanAlgorithm::raking>>("tc_256x32_raking", Impl::tilecraft, n);
      register_scan<float, ScanPolicy<256, 32, BlockScanAlgorithm::warp_scans>>("tc_256x32_warp_scans", Impl::tilecraft,
                                                                                n);
      register_scan<float, ScanPolicy<256, 32, BlockScanAlgorithm::two_level, CacheHint::streaming>>(
          "tc_256x32_stream", Impl::tilecraft, n);
    }
    const std::int64_t big = std::int64_t{1} << 28;
    register_scan<std::int64_t, ScanPolicy<256, 8>>("tc_256x8", Impl::tilecraft, big);
    register_scan<std::int64_t, ScanPolicy<512, 8>>("tc_512x8", Impl::tilecraft, big);
    register_scan<std::int64_t, ScanPolicy<128, 32>>("tc_128x32", Impl::tilecraft, big);
    register_scan<std::int64_t, ScanPolicy<256, 12>>("tc_256x12", Impl::tilecraft, big);
    // select_if's tile shapes (same filter idea: 'select_f32/(cub|tilecraft|tc_).*').
    auto select_variant = [](const char* impl, auto bench) {
      const std::string name = std::string("select_f32/") + impl + "/" + std::to_string(1 << 28);
      benchmark::RegisterBenchmark(name.c_str(), bench)
          ->Arg(std::int64_t{1} << 28)
          ->UseManualTime()
          ->MinTime(0.05)
          ->Unit(benchmark::kMicrosecond);
    };
    select_variant("tc_256x32", [](benchmark::State& st) { select_bench<ScanPolicy<256, 32>>(st, true); });
    select_variant("tc_160x48", [](benchmark::State& st) { select_bench<ScanPolicy<160, 48>>(st, true); });
    select_variant("tc_512x16", [](benchmark::State& st) { select_bench<ScanPolicy<512, 16>>(st, true); });
    select_variant("tc_128x32", [](benchmark::State& st) { select_bench<ScanPolicy<128, 32>>(st, true); });
  }
#endif
  return true;
}();

}  // namespace
