// tilecraft::reduce against exact host references (integers: every order of summation gives
// the same bits, so the host's loop is the reference, with the init's type as the accumulator as
// in CUB), a double host reference for floats, and cub::DeviceReduce for float sums with NaN
// and Inf: sizes from 0 to past 2^31, every operator, integer, floating and user types,
// misaligned inputs, the two-phase and the convenience forms, determinism.
// (One CUB instantiation only: each one compiles CUB's whole dispatch for every architecture.)
#include <doctest/doctest.h>

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include <tilecraft/device/reduce.cuh>
#include <tilecraft/util/functional.cuh>

#include "ops.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

// Runs tilecraft::reduce (or reduce_with another grid policy) through the two-phase API on a
// fresh, poisoned output.
template <class In, class Out, class Op, class Init, class Policy = void>
Out run_reduce(const In* d_in, std::int64_t n, Op op, Init init) {
  DeviceBuffer<Out> out(1);
  out.poison();
  std::size_t bytes = 0;
  REQUIRE(reduce<Policy>(nullptr, bytes, d_in, out.get(), n, op, init, nullptr) == cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();  // the algorithm must not rely on zeroed temp storage
  REQUIRE(reduce<Policy>(temp.get(), bytes, d_in, out.get(), n, op, init, nullptr) == cudaSuccess);
  tilecraft::test::sync_and_check();
  return out.download()[0];
}

// The host's fold of n elements from init, in Acc arithmetic (integers wrap as on the device).
template <class Acc, class In, class Op>
Acc host_fold(const In* x, std::int64_t n, Op op, Acc init) {
  Acc acc = init;
  for (std::int64_t i = 0; i < n; ++i) acc = op(acc, static_cast<Acc>(x[i]));
  return acc;
}
// int sums wrap: the host adds in unsigned arithmetic, as two's complement hardware does.
struct WrappingSum {
  int operator()(int a, int b) const {
    return static_cast<int>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
  }
};
struct HostMin {
  template <class T>
  T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
struct HostMax {
  template <class T>
  T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};

template <class In, class Out, class Op, class Init>
Out run_cub(const In* d_in, std::int64_t n, Op op, Init init) {
  DeviceBuffer<Out> out(1);
  std::size_t bytes = 0;
  TILECRAFT_THROW_IF_ERROR(cub::DeviceReduce::Reduce(nullptr, bytes, d_in, out.get(), n, op, init));
  DeviceBuffer<unsigned char> temp(bytes);
  TILECRAFT_THROW_IF_ERROR(cub::DeviceReduce::Reduce(temp.get(), bytes, d_in, out.get(), n, op, init));
  tilecraft::test::sync_and_check();
  return out.download()[0];
}

// Edges of the launch paths: the one-tile kernels up to 16 KiB (4096 ints), 64 KiB (16384) and
// 256 KiB (65536; its second round from 32768), the cooperative grid above.
const std::int64_t reduce_sizes[] = {0,    1,    2,     31,    33,    1000,      4093,    4095,          4096,
                                     4097, 4115, 16384, 16385, 32769, 65536 + 3, 1 << 16, (1 << 20) + 7, (1 << 22) + 1};

// (CUB's only in full runs: sanitizer-sized runs check the library's kernels against the host.)
TEST_CASE("integer sums, minima and maxima equal CUB's and the host's exactly at every size and alignment") {
  for (std::int64_t n : reduce_sizes) {
    for (int shift : {0, 1, 3}) {
      CAPTURE(n);
      CAPTURE(shift);
      const auto host =
          tilecraft::test::random_vector<int>(static_cast<std::size_t>(n + shift), -1000000, 1000000, 4 * n + shift);
      DeviceBuffer<int> in(host);
      const int* p = in.get() + shift;
      const int* h = host.data() + shift;
      const int sum = host_fold(h, n, WrappingSum{}, 7);
      const int min = host_fold(h, n, HostMin{}, INT32_MAX), max = host_fold(h, n, HostMax{}, INT32_MIN);
      CHECK(run_reduce<int, int>(p, n, Sum{}, 7) == sum);
      CHECK(run_reduce<int, int>(p, n, Min{}, INT32_MAX) == min);
      CHECK(run_reduce<int, int>(p, n, Max{}, INT32_MIN) == max);
      if (tilecraft::test::peers_run()) {
        CHECK(run_cub<int, int>(p, n, Sum{}, 7) == sum);
        CHECK(run_cub<int, int>(p, n, Min{}, INT32_MAX) == min);
        CHECK(run_cub<int, int>(p, n, Max{}, INT32_MIN) == max);
      }
      // 64-bit accumulation of 32-bit inputs (the init's type decides, as in CUB).
      const long long wide = host_fold(h, n, std::plus<long long>{}, 0LL);
      CHECK(run_reduce<int, long long>(p, n, Sum{}, 0LL) == wide);
      if (tilecraft::test::peers_run()) CHECK(run_cub<int, long long>(p, n, Sum{}, 0LL) == wide);
      // Inputs of 2^30 and more: every sum of three past 2^31, whatever the seed, so that only
      // the init's 64 bits carry it (an int accumulator would wrap).
      std::vector<int> big(host);
      for (int& v : big) v = (1 << 30) + (v & 0x3fffffff) / 2;
      DeviceBuffer<int> big_in(big);
      const long long big_sum = host_fold(big.data() + shift, n, std::plus<long long>{}, 0LL);
      CHECK(run_reduce<int, long long>(big_in.get() + shift, n, Sum{}, 0LL) == big_sum);
    }
  }
}

TEST_CASE("every grid policy (loads in flight, cache hints) equals the host's sum at every size and alignment") {
  using Streaming = ReducePolicy<256, 8, 4, CacheHint::streaming>;
  using Normal = ReducePolicy<256, 8, 4, CacheHint::normal>;
  using Narrow = ReducePolicy<128, 4, 8, CacheHint::streaming>;
  for (std::int64_t n : reduce_sizes) {
    for (int shift : {0, 1, 2}) {
      CAPTURE(n);
      CAPTURE(shift);
      const auto host =
          tilecraft::test::random_vector<int>(static_cast<std::size_t>(n + shift), -1000000, 1000000, 3 * n + shift);
      DeviceBuffer<int> in(host);
      const int* p = in.get() + shift;
      const long long want = host_fold(host.data() + shift, n, std::plus<long long>{}, 0LL);
      CHECK(run_reduce<int, long long, Sum, long long, Streaming>(p, n, Sum{}, 0LL) == want);
      CHECK(run_reduce<int, long long, Sum, long long, Normal>(p, n, Sum{}, 0LL) == want);
      CHECK(run_reduce<int, long long, Sum, long long, Narrow>(p, n, Sum{}, 0LL) == want);
    }
  }
}

// The one-tile kernels peel a head up to the first 16-byte boundary and a tail after the last
// whole vector: every element width, every element offset, sizes at each tier's limit (16, 64
// and 256 KiB; one element more takes the next tier or the grid) and at the widest tier's
// second round.
template <class In>
void check_small_sums(std::uint64_t salt) {
  using Tiers = tilecraft::detail::ReduceSingleBlock;
  constexpr auto elems = [](std::int64_t bytes) { return bytes / static_cast<std::int64_t>(sizeof(In)); };
  constexpr std::int64_t narrow = elems(Tiers::Narrow::max_bytes), mid = elems(Tiers::Mid::max_bytes),
                         wide = elems(Tiers::Wide::max_bytes), round = wide / Tiers::Wide::rounds;
  constexpr int shifts = 16 / static_cast<int>(sizeof(In));
  for (std::int64_t n :
       {std::int64_t{1}, std::int64_t{3}, std::int64_t{17}, std::int64_t{255}, std::int64_t{1001}, narrow - 17,
        narrow - 1, narrow, narrow + 1, mid, mid + 1, round - 1, round + 1, round + 17, wide - 1, wide, wide + 1}) {
    for (int shift = 0; shift < shifts; ++shift) {
      CAPTURE(sizeof(In));
      CAPTURE(n);
      CAPTURE(shift);
      const auto ints = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n + shift), -100, 100, salt + n);
      const std::vector<In> host(ints.begin(), ints.end());
      DeviceBuffer<In> in(host);
      long long ref = 0;
      for (std::int64_t i = 0; i < n; ++i) ref += static_cast<long long>(host[static_cast<std::size_t>(i + shift)]);
      // Integer values: every order of summation is exact, so a lost or doubled element shows.
      CHECK(run_reduce<In, long long>(in.get() + shift, n, Sum{}, 0LL) == ref);
      CHECK(run_reduce<In, In>(in.get() + shift, n, Max{}, std::numeric_limits<In>::lowest()) ==
            host_fold(host.data() + shift, n, HostMax{}, std::numeric_limits<In>::lowest()));
    }
  }
}

TEST_CASE("small inputs of every element width at every alignment (the one-tile kernels)") {
  check_small_sums<std::int8_t>(501);
  check_small_sums<short>(502);
  check_small_sums<int>(503);
  check_small_sums<double>(504);
}

TEST_CASE("float sums: exact on integer values, within the rounding bound on real values") {
  for (std::int64_t n : reduce_sizes) {
    for (int shift : {0, 1, 2, 3}) {
      CAPTURE(n);
      CAPTURE(shift);
      // Values 0..3: every partial sum is an integer below 2^24, so any order is exact and a
      // missing or doubled element shows.
      const auto ints = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n + shift), 0, 3, 7 * n + shift);
      std::vector<float> exact(ints.begin(), ints.end());
      DeviceBuffer<float> in(exact);
      double ref = 0;
      for (std::int64_t i = 0; i < n; ++i) ref += exact[static_cast<std::size_t>(i + shift)];
      CHECK(run_reduce<float, float>(in.get() + shift, n, Sum{}, 0.5f) == static_cast<float>(ref + 0.5));

      const auto real =
          tilecraft::test::random_vector<float>(static_cast<std::size_t>(n + shift), -1.0, 1.0, 11 * n + shift);
      in.upload(real);
      double rref = 0, abs_sum = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        rref += real[static_cast<std::size_t>(i + shift)];
        abs_sum += std::fabs(real[static_cast<std::size_t>(i + shift)]);
      }
      const float got = run_reduce<float, float>(in.get() + shift, n, Sum{}, 0.0f);
      // Longest dependent chain: a thread's share of the array plus the tree levels. The share:
      // up to 256 KiB one block of at least 256 threads; above, a grid of up to 4 blocks of 256
      // threads an SM (ReducePolicy<>), each block one tile of 8192 floats at least (a share of
      // 32 and a few for the head and tail).
      int sms = 0;
      TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
      const double share = n * 4 <= (256 << 10) ? static_cast<double>(n) / 256.0
                                                : std::max(static_cast<double>(n) / (sms * 1024.0), 64.0);
      const double depth = share + 64;
      CHECK(std::fabs(got - rref) <= tilecraft::test::sum_tolerance(abs_sum, depth, 0x1p-24));
      float mn = std::numeric_limits<float>::infinity();
      for (std::int64_t i = 0; i < n; ++i) mn = std::fmin(mn, real[static_cast<std::size_t>(i + shift)]);
      CHECK(run_reduce<float, float>(in.get() + shift, n, Min{}, std::numeric_limits<float>::infinity()) == mn);
    }
  }
}

TEST_CASE("double, half and user-type reductions") {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{999}, std::int64_t{(1 << 18) + 5}}) {
    CAPTURE(n);
    const auto d = tilecraft::test::random_vector<double>(static_cast<std::size_t>(n), -1.0, 1.0, 3 * n);
    DeviceBuffer<double> din(d);
    double ref = 0, abs_sum = 0;
    for (double x : d) {
      ref += x;
      abs_sum += std::fabs(x);
    }
    CHECK(std::fabs(run_reduce<double, double>(din.get(), n, Sum{}, 0.0) - ref) <=
          tilecraft::test::sum_tolerance(abs_sum, static_cast<double>(n) / 256 + 64, 0x1p-53));

    // __half inputs accumulate in float: integer values stay exact far beyond half's range.
    const auto small = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), 0, 4, 5 * n);
    std::vector<__half> h(small.size());
    long long href = 0;
    for (std::size_t i = 0; i < small.size(); ++i) {
      h[i] = __half(static_cast<float>(small[i]));
      href += small[i];
    }
    DeviceBuffer<__half> hin(h);
    CHECK(run_reduce<__half, float>(hin.get(), n, Sum{}, __half(0.0f)) == static_cast<float>(href));

    // An 8-byte struct with a commutative argmin operator.
    auto g = tilecraft::test::rng(17 * n);
    std::vector<test::ArgMin> a(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = {static_cast<float>(g() % 1000), static_cast<std::int32_t>(i)};
    test::ArgMin aref{1e30f, -1};
    for (const auto& x : a) aref = test::ArgMinOp{}(aref, x);
    DeviceBuffer<test::ArgMin> ain(a);
    CHECK(run_reduce<test::ArgMin, test::ArgMin>(ain.get(), n, test::ArgMinOp{}, test::ArgMin{1e30f, -1}) == aref);
  }
}

// Products of the factors and sums of the offsets, componentwise: associative and commutative,
// as the device reduce requires (elements are dealt to threads in strides).
struct ScaleAndShift {
  __host__ __device__ test::AffineInit operator()(const test::AffineInit& f, const test::AffineInit& g) const {
    return test::AffineInit{f.a * g.a, f.b + g.b};
  }
};

// A type with default member initializers (not trivially default constructible: block_reduce's
// storage holds it as raw bytes).
TEST_CASE("a type with default member initializers") {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{999}, std::int64_t{(1 << 20) + 5}}) {
    CAPTURE(n);
    const auto f = test::random_affine_init(static_cast<std::size_t>(n), 7 * n);
    const test::AffineInit init{3u, 5u};
    test::AffineInit ref = init;
    for (const auto& x : f) ref = ScaleAndShift{}(ref, x);
    DeviceBuffer<test::AffineInit> in(f);
    CHECK(run_reduce<test::AffineInit, test::AffineInit>(in.get(), n, ScaleAndShift{}, init) == ref);
  }
}

TEST_CASE("int8 inputs past 2^31 elements, accumulated in 64 bits") {
  if (tilecraft::test::sanitizer_sized()) {
    MESSAGE("TILECRAFT_TEST_HUGE=0: skipping the 2^31 + 5 element case");
    return;
  }
  const std::int64_t n = (std::int64_t{1} << 31) + 5;
  DeviceBuffer<std::int8_t> in(static_cast<std::size_t>(n) + 1);
  // A pattern with a known sum: fill with 3, then set a few bytes (head, 2^31 boundary, tail).
  TILECRAFT_THROW_IF_ERROR(cudaMemset(in.get(), 3, static_cast<std::size_t>(n) + 1));
  const std::int8_t marks[] = {-100, 77, -5, 120};
  const std::int64_t where[] = {1, 2, (std::int64_t{1} << 31) - 1, n};
  for (int i = 0; i < 4; ++i)
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in.get() + where[i], &marks[i], 1, cudaMemcpyHostToDevice));
  // Input starts at +1 (misaligned) and covers buffer[1 .. n]: all four marks, n - 4 threes.
  const std::int64_t ref = 3 * (n - 4) + (-100 + 77 - 5 + 120);
  CHECK(run_reduce<std::int8_t, long long>(in.get() + 1, n, Sum{}, 0LL) == ref);
}

TEST_CASE("the result is bitwise identical run to run") {
  const std::int64_t n = (1 << 24) + 13;
  const auto real = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n), -1.0, 1.0, 4242);
  DeviceBuffer<float> in(real);
  // Misaligned by one element: m <= n - 1 elements fit after in.get() + 1.
  for (std::int64_t m : {n - 1, std::int64_t{5000}, std::int64_t{70000}}) {
    const float first = run_reduce<float, float>(in.get() + 1, m, Sum{}, 0.0f);
    for (int run = 0; run < 20; ++run) {
      const float again = run_reduce<float, float>(in.get() + 1, m, Sum{}, 0.0f);
      CHECK(std::memcmp(&first, &again, sizeof(float)) == 0);
    }
  }
}

// Where the GPU refuses the cooperative launch (MPS, green contexts), the grid runs without its
// barrier and a second kernel folds its partials: forced here (launch_reduce's
// cooperative_allowed), the same bits as the cooperative grid, misaligned and aligned, and the
// exact integer sum.
TEST_CASE("the grid as two kernels, where a cooperative launch is refused: the same bits") {
  using Policy = ReducePolicy<>;
  constexpr int vec = detail::reduce_vector_elems<float>;
  std::vector<std::int64_t> sizes = {(1 << 22) + 13};
  if (!tilecraft::test::sanitizer_sized()) sizes.push_back((1 << 24) + 7);
  for (std::int64_t n : sizes) {
    CAPTURE(n);
    const auto real = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n) + 1, -1.0, 1.0,
                                                            5151 + static_cast<std::uint64_t>(n));
    DeviceBuffer<float> in(real);
    for (int shift : {0, 1}) {
      CAPTURE(shift);
      const float* p = in.get() + shift;
      const float cooperative = run_reduce<float, float>(p, n, Sum{}, 0.5f);
      int grid = 1;
      REQUIRE(detail::reduce_grid_size<Policy, vec, float>(n, grid) == cudaSuccess);
      REQUIRE(grid > 1);
      DeviceBuffer<float> partials(static_cast<std::size_t>(grid)), out(1);
      partials.poison();
      out.poison();
      REQUIRE(detail::launch_reduce<Policy, vec>(grid, p, n, out.get(), Sum{}, 0.5f, partials.get(), nullptr, false) ==
              cudaSuccess);
      tilecraft::test::sync_and_check();
      const float two_kernels = out.download()[0];
      CHECK(std::memcmp(&cooperative, &two_kernels, sizeof(float)) == 0);
    }
    // Integers: exact against the host.
    const auto ints = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), -1000, 1000, 77);
    DeviceBuffer<int> iin(ints);
    long long want = 3;
    for (int v : ints) want += v;
    int grid = 1;
    REQUIRE(detail::reduce_grid_size<Policy, detail::reduce_vector_elems<int>, int>(n, grid) == cudaSuccess);
    DeviceBuffer<long long> partials(static_cast<std::size_t>(grid)), out(1);
    out.poison();
    REQUIRE(detail::launch_reduce<Policy, detail::reduce_vector_elems<int>>(
                grid, iin.get(), n, out.get(), Sum{}, 3LL, partials.get(), nullptr, false) == cudaSuccess);
    tilecraft::test::sync_and_check();
    CHECK(out.download()[0] == want);
  }
}

TEST_CASE("NaN and Inf propagate through sums as in CUB") {
  for (std::int64_t n : {std::int64_t{100}, std::int64_t{(1 << 20) + 3}}) {
    std::vector<float> v(static_cast<std::size_t>(n), 1.0f);
    DeviceBuffer<float> in(v);
    auto set = [&](std::int64_t i, float x) {
      TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in.get() + i, &x, sizeof x, cudaMemcpyHostToDevice));
    };
    set(n / 2, std::numeric_limits<float>::infinity());
    float a = run_reduce<float, float>(in.get(), n, Sum{}, 0.0f), b = run_cub<float, float>(in.get(), n, Sum{}, 0.0f);
    CHECK(std::isinf(a));
    CHECK(a > 0);
    CHECK(a == b);
    set(n - 1, -std::numeric_limits<float>::infinity());
    a = run_reduce<float, float>(in.get(), n, Sum{}, 0.0f);
    CHECK(std::isnan(a));
    CHECK(std::isnan(run_cub<float, float>(in.get(), n, Sum{}, 0.0f)));
    set(n - 1, std::numeric_limits<float>::quiet_NaN());
    CHECK(std::isnan(run_reduce<float, float>(in.get(), n, Sum{}, 0.0f)));
  }
}

TEST_CASE("the convenience form and streams") {
  const std::int64_t n = (1 << 21) + 77;
  const auto ints = tilecraft::test::random_vector<long long>(static_cast<std::size_t>(n), -1000000, 1000000, 31337);
  DeviceBuffer<long long> in(ints), out(1);
  out.poison();
  const tilecraft::test::Stream stream;
  CHECK(reduce(in.get(), out.get(), n, Sum{}, 0LL, stream) == cudaSuccess);
  stream.synchronize();
  const long long want = host_fold(ints.data(), n, std::plus<long long>{}, 0LL);
  CHECK(out.download()[0] == want);
  // n == 0 writes the init.
  out.poison();
  CHECK(reduce(in.get(), out.get(), 0, Sum{}, 42LL) == cudaSuccess);
  tilecraft::test::sync_and_check();
  CHECK(out.download()[0] == 42);
  // Refusals (a negative count; more bytes than 64 bits count, refused by the convenience
  // form's size query) leave an earlier call's cudaErrorInvalidValue in the last-error slot.
  using tilecraft::test::check_keeps_earlier_invalid_value;
  check_keeps_earlier_invalid_value([&] { return reduce(in.get(), out.get(), -1, Sum{}, 0LL); });
  check_keeps_earlier_invalid_value([&] { return reduce(in.get(), out.get(), std::int64_t{1} << 62, Sum{}, 0LL); });
  std::size_t bytes = 0;
  check_keeps_earlier_invalid_value([&] { return reduce(nullptr, bytes, in.get(), out.get(), -1, Sum{}, 0LL); });
}
