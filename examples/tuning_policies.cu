// Tuning by policy: every whole-array launcher takes its tile shape, threads, stages and
// algorithm as a compile-time Policy (CUB's custom-policy idea), and the block-level primitives
// take their algorithm as a template argument. The defaults are what measured fastest on an
// H200 (benchmarks/TUNING.md); another GPU, or another input, may prefer another shape. Each
// launcher below runs with its default and with one named policy on the same data; both results
// are checked against the host, and both are timed, so the program is the start of a tuning
// run of your own:
//   reduce          ReducePolicy<128, 4, 8>: 128 threads of 4 vectors, 8 blocks an SM
//   inclusive_scan  ScanPolicy<128, 16>: 2048-item tiles of 128 threads (the default's tile
//                   depends on the input's size; none of them is this one)
//   histogram_even  HistogramPolicy<256, 8, 8, 0>: warp sub-histograms (LaneMaxBins = 0: never
//                   per-lane counters), one copy per 8 warps
//   stencil_1d      StencilPolicy<128, 2, 3, 0, tiled>: a persistent grid, 3 pipeline stages of
//                   tiles with halos in shared memory (the default for radius 4 reads each window
//                   straight from global memory), StencilBoundary::clamp
//   transpose       TransposePolicy<float, 32, 32, 128, Padded<1>>: the course's padded tile
//   gemm            a GemmPolicyOf<members>: 64 x 64 tiles, K step 16, 4 x 8 accumulators a
//                   thread, 4 blocks an SM, K never split; then gemm_epilogue with the same
//                   policy and a bias + ReLU epilogue (the default gemm() comes from the
//                   library's compiled instances: TILECRAFT_GEMM_INSTANCE)
//   block_reduce    BlockReduceAlgorithm::warp_shuffle and ::shared_tree in one user kernel
// A policy that breaks a rule does not compile: its static_assert states the rule.
// The times are means of 20 calls (two-phase forms, temp storage allocated outside the timed
// calls) with the inputs left in L2 where they fit, which at the default n is most of them: for a
// tuning decision, measure your own sizes as benchmarks/ does (L2 flushed, medians).
// Usage: tuning_policies [n]   (default 2^24 elements; the transpose is about sqrt(n) square)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

#include <tilecraft/block/block_reduce.cuh>
#include <tilecraft/device/gemm.cuh>
#include <tilecraft/device/histogram.cuh>
#include <tilecraft/device/reduce.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/stencil.cuh>
#include <tilecraft/device/transpose.cuh>

#include "example_util.cuh"

// The default float gemm() is compiled once, in another unit of this program (see
// examples/CMakeLists.txt): declared here, not instantiated.
TILECRAFT_GEMM_INSTANCE(extern, float);

namespace {

using NarrowReduce = tilecraft::ReducePolicy<128, 4, 8>;
using SmallTileScan = tilecraft::ScanPolicy<128, 16>;
using WarpHistogram = tilecraft::HistogramPolicy<256, 8, 8, 0>;
using PipelinedStencil = tilecraft::StencilPolicy<128, 2, 3, 0, tilecraft::StencilAlgorithm::tiled>;
using CourseTranspose = tilecraft::TransposePolicy<float, 32, 32, 128, tilecraft::Padded<1>>;

// A GEMM policy by named members: what is not named keeps GemmPolicyDefaults' value (lanes,
// stages, L2 grouping). GemmPolicyOf checks the rules (tile, register block, threads, shared
// memory) with static_asserts that state them.
struct Square64Members : tilecraft::GemmPolicyDefaults<float> {
  static constexpr int tile_m = 64, tile_n = 64, tile_k = 16, min_blocks_per_sm = 4, max_split_k = 1;
  using reg_block = tilecraft::RegBlock<4, 8>;
};
using Square64 = tilecraft::GemmPolicyOf<Square64Members>;
static_assert(Square64::tiled::threads == 128, "64 x 64 tiles of 4 x 8 accumulators a thread: 128 threads");

// C = max(A B + bias[col], 0): the old C is not read.
struct BiasRelu {
  const float* bias;
  __host__ __device__ bool reads_c() const { return false; }
  __host__ __device__ float operator()(float acc, float, std::int64_t, std::int64_t col) const {
    return fmaxf(acc + bias[col], 0.0f);
  }
};
static_assert(tilecraft::GemmEpilogue<BiasRelu>);

// Names a policy for the generic lambdas below (void: the launcher's default).
template <class P>
struct With {
  using type = P;
};

// Runs `run` (which launches, checks and times one policy, returning {ms, ok}) with the
// launcher's default and with Policy in two alternating rounds, and prints one line: the faster
// round of each, the verdict of all four checks. (Two rounds: the first launches of a kernel in
// a process can carry one-time costs that one warm-up call does not absorb; on an H200 the first
// round of the default transpose here once took 120-160 us a call against 4-7 us in the second.)
template <class Policy, class Run>
void compare(const char* what, const char* policy, Run&& run) {
  const auto [d1, ok1] = run(With<void>{});
  const auto [p1, ok2] = run(With<Policy>{});
  const auto [d2, ok3] = run(With<void>{});
  const auto [p2, ok4] = run(With<Policy>{});
  std::printf("  %-15s default %8.1f us | %-34s %8.1f us  %s\n", what, std::fmin(d1, d2) * 1e3, policy,
              std::fmin(p1, p2) * 1e3, example::verdict(ok1 && ok2 && ok3 && ok4));
}

template <class T>
std::vector<T> to_host(const T* d, std::size_t count) {
  std::vector<T> h(count);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Poisons an output before each checked run, so that a launcher that wrote nothing fails: NaN
// for floats, 0x80808080 for integers (beyond every sum and count this program computes).
template <class T>
void poison(T* d, std::size_t count) {
  TILECRAFT_THROW_IF_ERROR(cudaMemset(d, std::is_floating_point_v<T> ? 0xff : 0x80, count * sizeof(T)));
}

// The temp storage of a two-phase launcher call (its size from the query with the same policy).
class Temp {
 public:
  explicit Temp(std::size_t bytes) { TILECRAFT_THROW_IF_ERROR(cudaMalloc(&p_, bytes)); }
  Temp(const Temp&) = delete;
  Temp& operator=(const Temp&) = delete;
  ~Temp() { (void)cudaFree(p_); }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// Each block sums its 4 * BlockThreads ints with block_reduce's Algorithm: thread 0 writes it.
template <int BlockThreads, tilecraft::BlockReduceAlgorithm Algorithm>
__global__ void __launch_bounds__(BlockThreads) block_sums(const int* in, std::int64_t n, int* sums) {
  __shared__ tilecraft::BlockReduceStorage<int, BlockThreads, Algorithm> temp;
  const std::int64_t first = std::int64_t{blockIdx.x} * BlockThreads * 4;
  int items[4];
  for (int i = 0; i < 4; ++i) {
    const std::int64_t at = first + std::int64_t{i} * BlockThreads + threadIdx.x;  // coalesced
    items[i] = at < n ? in[at] : 0;
  }
  const int sum = tilecraft::block_reduce(temp, items, tilecraft::Sum{});
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

// The block_reduce algorithm With<A> names: A::value, or the default (warp_shuffle) for void.
template <class A>
constexpr tilecraft::BlockReduceAlgorithm algorithm_of() {
  if constexpr (std::is_void_v<A>) {
    return tilecraft::BlockReduceAlgorithm::warp_shuffle;
  } else {
    return A::value;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!example::have_gpu("tuning_policies")) return 0;
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : (std::int64_t{1} << 24);
  if (n < 1 || n > (std::int64_t{1} << 28)) {
    std::printf("n must be between 1 and 2^28\n");
    return 1;
  }
  const auto count = static_cast<std::size_t>(n);
  std::printf("%lld elements\n", static_cast<long long>(n));

  // Inputs: small ints (every sum exact), bytes, floats.
  example::UniformFloats uniform(0.0f, 1.0f, 20261130);
  std::vector<int> h_ints(count);
  std::vector<std::uint8_t> h_bytes(count);
  std::vector<float> h_floats(count);
  for (std::size_t i = 0; i < count; ++i) {
    const float u = uniform();
    h_ints[i] = static_cast<int>(u * 8.0f) - 3;  // -3 ... 4
    h_bytes[i] = static_cast<std::uint8_t>(uniform() * 256.0f);
    h_floats[i] = u - 0.5f;
  }
  int* d_ints = example::device_copy(h_ints);
  std::uint8_t* d_bytes = example::device_copy(h_bytes);
  float* d_floats = example::device_copy(h_floats);
  int* d_int_out = nullptr;
  float* d_float_out = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_int_out, count * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_float_out, count * sizeof(float)));

  // ---- reduce: the sum of the ints ----
  {
    std::int64_t ref = 0;
    for (int v : h_ints) ref += v;
    auto run = [&](auto with) {
      using P = typename decltype(with)::type;
      std::size_t bytes = 0;
      TILECRAFT_THROW_IF_ERROR(tilecraft::reduce<P>(nullptr, bytes, d_ints, d_int_out, n, tilecraft::Sum{}, 0));
      const Temp temp(bytes);
      auto launch = [&] {
        TILECRAFT_THROW_IF_ERROR(tilecraft::reduce<P>(temp.get(), bytes, d_ints, d_int_out, n, tilecraft::Sum{}, 0));
      };
      poison(d_int_out, 1);
      launch();
      const bool ok = to_host(d_int_out, 1)[0] == ref;
      return std::pair{example::time_ms(launch), ok};
    };
    compare<NarrowReduce>("reduce", "ReducePolicy<128, 4, 8>", run);
  }

  // ---- inclusive_scan: the running sums of the ints ----
  {
    std::vector<int> ref(count);
    int running = 0;
    for (std::size_t i = 0; i < count; ++i) ref[i] = running += h_ints[i];
    auto run = [&](auto with) {
      using P = typename decltype(with)::type;
      std::size_t bytes = 0;
      TILECRAFT_THROW_IF_ERROR(tilecraft::inclusive_scan<P>(nullptr, bytes, d_ints, d_int_out, n, tilecraft::Sum{}));
      const Temp temp(bytes);
      auto launch = [&] {
        TILECRAFT_THROW_IF_ERROR(
            tilecraft::inclusive_scan<P>(temp.get(), bytes, d_ints, d_int_out, n, tilecraft::Sum{}));
      };
      poison(d_int_out, count);
      launch();
      const bool ok = to_host(d_int_out, count) == ref;
      return std::pair{example::time_ms(launch), ok};
    };
    compare<SmallTileScan>("inclusive_scan", "ScanPolicy<128, 16>", run);
  }

  // ---- histogram_even: the bytes in 256 bins ----
  {
    std::vector<unsigned> ref(256, 0);
    for (std::uint8_t b : h_bytes) ++ref[b];
    unsigned* d_hist = nullptr;
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_hist, 256 * sizeof(unsigned)));
    const auto* samples = static_cast<const std::uint8_t*>(d_bytes);
    auto run = [&](auto with) {
      using P = typename decltype(with)::type;
      std::size_t bytes = 0;
      TILECRAFT_THROW_IF_ERROR(tilecraft::histogram_even<P>(nullptr, bytes, samples, d_hist, 256, 0, 256, n));
      const Temp temp(bytes);
      auto launch = [&] {
        TILECRAFT_THROW_IF_ERROR(tilecraft::histogram_even<P>(temp.get(), bytes, samples, d_hist, 256, 0, 256, n));
      };
      poison(d_hist, 256);
      launch();
      const bool ok = to_host(d_hist, 256) == ref;
      return std::pair{example::time_ms(launch), ok};
    };
    compare<WarpHistogram>("histogram_even", "HistogramPolicy<256, 8, 8, 0>", run);
    TILECRAFT_THROW_IF_ERROR(cudaFree(d_hist));
  }

  // ---- stencil_1d: a 9-point smoothing of the floats, clamped at the ends ----
  {
    constexpr int radius = 4;
    tilecraft::StencilWeights<float, radius> w{};
    for (int j = 0; j < w.size; ++j) w.w[j] = 1.0f / static_cast<float>(1 + (j > radius ? j - radius : radius - j));
    std::vector<double> ref(count);
    for (std::int64_t i = 0; i < n; ++i) {
      double s = 0.0;
      for (int j = -radius; j <= radius; ++j) {
        const std::int64_t at = i + j < 0 ? 0 : i + j >= n ? n - 1 : i + j;
        s += static_cast<double>(w.w[j + radius]) * h_floats[static_cast<std::size_t>(at)];
      }
      ref[static_cast<std::size_t>(i)] = s;
    }
    auto close = [&](const std::vector<float>& got) {
      for (std::size_t i = 0; i < count; ++i) {
        if (!(std::fabs(got[i] - ref[i]) <= 1e-5 * (1.0 + std::fabs(ref[i])))) return false;
      }
      return true;
    };
    std::vector<float> first;
    auto run = [&](auto with) {
      using P = typename decltype(with)::type;
      auto launch = [&] {
        TILECRAFT_THROW_IF_ERROR(
            tilecraft::stencil_1d<radius, P>(d_floats, d_float_out, n, w, tilecraft::StencilBoundary::clamp));
      };
      poison(d_float_out, count);
      launch();
      const auto got = to_host(d_float_out, count);
      // Every policy follows the same fma chain (j = -R ... R): the same bits as the first run.
      if (first.empty()) first = got;
      return std::pair{example::time_ms(launch), close(got) && got == first};
    };
    compare<PipelinedStencil>("stencil_1d", "StencilPolicy<128, 2, 3, 0, tiled>", run);
  }

  // ---- transpose: a rows x cols float matrix (rows * cols <= n, neither a multiple of 32) ----
  {
    const auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
    // r * c <= side^2 <= n, before and after the nudges off multiples of 32 (r stays >= 1).
    std::int64_t r = side > 40 ? side - 7 : side, c = side > 40 ? side + 5 : side;
    if (r % 32 == 0) --r;
    if (c % 32 == 0) ++c;
    auto run = [&](auto with) {
      using P = typename decltype(with)::type;
      auto launch = [&] { TILECRAFT_THROW_IF_ERROR(tilecraft::transpose<P>(d_floats, c, d_float_out, r, r, c)); };
      poison(d_float_out, static_cast<std::size_t>(r * c));
      launch();
      const auto got = to_host(d_float_out, static_cast<std::size_t>(r * c));
      bool ok = true;
      for (std::int64_t i = 0; i < r && ok; ++i) {
        for (std::int64_t j = 0; j < c; ++j) {
          if (got[static_cast<std::size_t>(j * r + i)] != h_floats[static_cast<std::size_t>(i * c + j)]) {
            ok = false;
            break;
          }
        }
      }
      return std::pair{example::time_ms(launch), ok};
    };
    compare<CourseTranspose>("transpose", "TransposePolicy<float, 32, 32, 128>", run);
  }

  // ---- gemm: C = A B, m x n x k (none a multiple of a tile), row-major ----
  {
    const std::int64_t m = 517, nn = 389, k = 1001;
    std::vector<float> ha(static_cast<std::size_t>(m * k)), hb(static_cast<std::size_t>(k * nn)),
        hbias(static_cast<std::size_t>(nn));
    for (auto& v : ha) v = uniform() - 0.5f;
    for (auto& v : hb) v = uniform() - 0.5f;
    for (auto& v : hbias) v = uniform() - 0.5f;
    // The FP64 reference and the bound of an FP32 sum of k products: k * 2^-24 * sum |a| |b|
    // (twice that for the bias step's rounding is far below it).
    std::vector<double> ref(static_cast<std::size_t>(m * nn)), bound(ref.size());
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < nn; ++j) {
        double s = 0.0, abs_sum = 0.0;
        for (std::int64_t kk = 0; kk < k; ++kk) {
          const double p =
              static_cast<double>(ha[static_cast<std::size_t>(i * k + kk)]) * hb[static_cast<std::size_t>(kk * nn + j)];
          s += p;
          abs_sum += std::fabs(p);
        }
        ref[static_cast<std::size_t>(i * nn + j)] = s;
        bound[static_cast<std::size_t>(i * nn + j)] = static_cast<double>(k) * 0x1p-24 * abs_sum + 1e-30;
      }
    }
    float* a = example::device_copy(ha);
    float* b = example::device_copy(hb);
    float* bias = example::device_copy(hbias);
    float* c = nullptr;
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&c, ref.size() * sizeof(float)));
    // relu: whether C holds max(A B + bias, 0) rather than A B.
    auto check = [&](bool relu) {
      const auto got = to_host(c, ref.size());
      for (std::size_t e = 0; e < ref.size(); ++e) {
        const double want = relu ? std::fmax(ref[e] + hbias[e % static_cast<std::size_t>(nn)], 0.0) : ref[e];
        if (!(std::fabs(got[e] - want) <= 2.0 * bound[e] + 1e-6)) return false;
      }
      return true;
    };
    const auto row = tilecraft::Order::row_major;
    const auto none = tilecraft::Op::none;
    auto run = [&](auto with) {
      using P = typename decltype(with)::type;
      auto launch = [&] {
        TILECRAFT_THROW_IF_ERROR(tilecraft::gemm<P>(row, none, none, m, nn, k, 1.0f, a, k, b, nn, 0.0f, c, nn));
      };
      poison(c, ref.size());
      launch();
      const bool ok = check(false);
      return std::pair{example::time_ms(launch), ok};
    };
    compare<Square64>("gemm", "GemmPolicyOf<Square64Members>", run);
    poison(c, ref.size());
    TILECRAFT_THROW_IF_ERROR(
        tilecraft::gemm_epilogue<Square64>(row, none, none, m, nn, k, a, k, b, nn, c, nn, BiasRelu{bias}));
    std::printf("  %-15s the same policy, C = max(A B + bias, 0): %s\n", "gemm_epilogue",
                example::verdict(check(true)));
    for (float* p : {a, b, bias, c}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  }

  // ---- block_reduce in a user kernel: the two algorithms ----
  {
    constexpr int threads = 256;
    const std::int64_t per_block = 4 * threads;
    const auto blocks = static_cast<int>((n + per_block - 1) / per_block);
    std::vector<int> ref(static_cast<std::size_t>(blocks), 0);
    for (std::int64_t i = 0; i < n; ++i)
      ref[static_cast<std::size_t>(i / per_block)] += h_ints[static_cast<std::size_t>(i)];
    // (void: the default algorithm, warp_shuffle.)
    auto run = [&](auto with) {
      using A = typename decltype(with)::type;
      auto kernel = block_sums<threads, algorithm_of<A>()>;
      auto launch = [&] {
        kernel<<<blocks, threads>>>(d_ints, n, d_int_out);
        TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
      };
      poison(d_int_out, static_cast<std::size_t>(blocks));
      launch();
      const bool ok = to_host(d_int_out, static_cast<std::size_t>(blocks)) == ref;
      return std::pair{example::time_ms(launch), ok};
    };
    using SharedTree =
        std::integral_constant<tilecraft::BlockReduceAlgorithm, tilecraft::BlockReduceAlgorithm::shared_tree>;
    compare<SharedTree>("block_reduce", "BlockReduceAlgorithm::shared_tree", run);
  }

  for (void* p : {static_cast<void*>(d_ints), static_cast<void*>(d_bytes), static_cast<void*>(d_floats),
                  static_cast<void*>(d_int_out), static_cast<void*>(d_float_out)}) {
    TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  }
  return example::exit_status();
}
