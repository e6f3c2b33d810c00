// block_inclusive_scan / block_exclusive_scan against a host fold and cub::BlockScan: 1 to 16
// items per thread, 32 to 1024 threads (and block sizes that are not whole warps), both
// algorithms, the block aggregate, partial blocks, the prefix callback carrying a running total
// across tiles, and an operator that is associative but not commutative.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <cub/block/block_scan.cuh>

#include <tilecraft/block/block_scan.cuh>
#include <tilecraft/util/functional.cuh>

#include "ops.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

// Outputs per item: [0] inclusive, [1] exclusive from init, [2] partial inclusive, [3] partial
// exclusive; per block: the four aggregates. Items == 1 uses the one-value overloads for the
// full scans. WithCub: [4] cub::BlockScan's inclusive sum.
template <int Threads, int Items, BlockScanAlgorithm Algo, bool WithCub, class T, class Op>
__global__ void __launch_bounds__(Threads)
    block_scan_kernel(const T* in, T* out, T* aggregates, const int* valid, T init, Op op) {
  __shared__ BlockScanStorage<T, Threads, Algo> temp;
  const int b = blockIdx.x;
  const int t = threadIdx.x;
  const std::size_t first = (static_cast<std::size_t>(b) * Threads + t) * Items;
  T v[Items], o[Items];
  for (int j = 0; j < Items; ++j) v[j] = in[first + j];
  auto put = [&](int which, const T(&x)[Items]) {
    for (int j = 0; j < Items; ++j) out[(first + j) * 5 + which] = x[j];
  };
  T agg[4];
  if constexpr (Items == 1) {
    o[0] = block_inclusive_scan(temp, v[0], op, agg[0]);
    put(0, o);
    __syncthreads();
    o[0] = block_exclusive_scan(temp, v[0], op, init, agg[1]);
    put(1, o);
  } else {
    block_inclusive_scan(temp, v, o, op, agg[0]);
    put(0, o);
    __syncthreads();
    block_exclusive_scan(temp, v, o, op, init, agg[1]);
    put(1, o);
  }
  __syncthreads();
  block_inclusive_scan(temp, v, o, op, ValidItems{valid[b]}, agg[2]);
  put(2, o);
  __syncthreads();
  block_exclusive_scan(temp, v, v, op, init, ValidItems{valid[b]}, agg[3]);  // in place
  put(3, v);
  if (t == 0)
    for (int k = 0; k < 4; ++k) aggregates[b * 4 + k] = agg[k];
  if constexpr (WithCub) {
    using CubScan = cub::BlockScan<T, Threads>;
    __shared__ typename CubScan::TempStorage cub_temp;
    T c[Items];
    for (int j = 0; j < Items; ++j) c[j] = in[first + j];
    CubScan(cub_temp).InclusiveSum(c, c);
    put(4, c);
  }
}

template <int Threads, int Items, BlockScanAlgorithm Algo, bool WithCub, class T, class Op>
void check_block_scan(const std::vector<T>& host, T init, Op op, std::uint64_t salt) {
  CAPTURE(Threads);
  CAPTURE(Items);
  CAPTURE(static_cast<int>(Algo));
  constexpr int per_block = Threads * Items;
  const int blocks = static_cast<int>(host.size()) / per_block;
  auto g = tilecraft::test::rng(salt);
  std::vector<int> valid(static_cast<std::size_t>(blocks));
  for (auto& v : valid) v = 1 + static_cast<int>(g() % per_block);
  valid[0] = per_block;
  if (blocks > 1) valid[1] = 1;
  if (blocks > 2) valid[2] = per_block - 1;
  DeviceBuffer<T> in(host), out(host.size() * 5), aggregates(static_cast<std::size_t>(blocks) * 4);
  DeviceBuffer<int> d_valid(valid);
  out.poison();
  aggregates.poison();
  block_scan_kernel<Threads, Items, Algo, WithCub>
      <<<blocks, Threads>>>(in.get(), out.get(), aggregates.get(), d_valid.get(), init, op);
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  const auto aggs = aggregates.download();
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    const std::size_t first = static_cast<std::size_t>(b) * per_block;
    const int nv = valid[static_cast<std::size_t>(b)];
    T incl = host[first], excl = init, incl_valid = host[first];
    for (int i = 0; i < per_block; ++i) {
      const std::size_t k = first + static_cast<std::size_t>(i);
      if (i > 0) incl = op(incl, host[k]);
      if (i > 0 && i < nv) incl_valid = incl;
      bad += !(got[k * 5 + 0] == incl);
      bad += !(got[k * 5 + 1] == excl);
      if (i < nv) {
        bad += !(got[k * 5 + 2] == incl);
        bad += !(got[k * 5 + 3] == excl);
      }
      if constexpr (WithCub) bad += !(got[k * 5 + 4] == incl);
      excl = op(excl, host[k]);
    }
    bad += !(aggs[static_cast<std::size_t>(b) * 4 + 0] == incl);
    bad += !(aggs[static_cast<std::size_t>(b) * 4 + 1] == incl);
    bad += !(aggs[static_cast<std::size_t>(b) * 4 + 2] == incl_valid);
    bad += !(aggs[static_cast<std::size_t>(b) * 4 + 3] == incl_valid);
  }
  CHECK(bad == 0);
}

template <int Threads, int Items, BlockScanAlgorithm Algo>
void check_shape() {
  const std::size_t n = static_cast<std::size_t>(Threads) * Items * 5;
  const std::uint64_t s = Threads * 100 + Items * 7 + static_cast<int>(Algo);
  check_block_scan<Threads, Items, Algo, true>(tilecraft::test::random_vector<int>(n, -1000, 1000, s), 0, Sum{}, s + 1);
  auto g = tilecraft::test::rng(s + 2);
  std::vector<test::Affine> f(n);
  for (auto& x : f) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  check_block_scan<Threads, Items, Algo, false>(f, test::Affine{3u, 5u}, test::Compose{}, s + 3);
}

// Representative shapes (each one a few kernels for every architecture CI builds): 1 to 16
// items, 17 to 1024 threads, whole warps and not.
TEST_CASE_TEMPLATE_DEFINE("block_scan at representative shapes", Algo, block_scan_algorithms) {
  constexpr BlockScanAlgorithm A = Algo::value;
  check_shape<32, 1, A>();
  check_shape<128, 4, A>();
  check_shape<256, 16, A>();
  check_shape<1024, 4, A>();
}
TEST_CASE_TEMPLATE_INVOKE(block_scan_algorithms,
                          std::integral_constant<BlockScanAlgorithm, BlockScanAlgorithm::warp_scans>,
                          std::integral_constant<BlockScanAlgorithm, BlockScanAlgorithm::two_level>);

TEST_CASE("block_scan with the automatic algorithm, odd block sizes and many items") {
  check_shape<96, 3, BlockScanAlgorithm::automatic>();
  check_shape<17, 7, BlockScanAlgorithm::automatic>();
  check_shape<512, 1, BlockScanAlgorithm::automatic>();
  check_shape<1024, 16, BlockScanAlgorithm::automatic>();
}

// The prefix callback: one block walks `tiles` tiles in order, carrying the running total.
template <class T, class Op>
struct Running {
  T total;
  bool started;
  Op op;
  __device__ T operator()(const T& block_aggregate) {
    const T before = total;
    total = started ? op(total, block_aggregate) : block_aggregate;
    started = true;
    return before;
  }
};

template <int Threads, int Items, class T, class Op>
__global__ void __launch_bounds__(Threads) walk_tiles_kernel(const T* in, T* incl, T* excl, int tiles, T init, Op op) {
  __shared__ BlockScanStorage<T, Threads> temp;
  Running<T, Op> inclusive_running{init, true, op};
  Running<T, Op> exclusive_running{init, true, op};
  for (int tile = 0; tile < tiles; ++tile) {
    const std::size_t first = (static_cast<std::size_t>(tile) * Threads + threadIdx.x) * Items;
    T v[Items], o[Items];
    for (int j = 0; j < Items; ++j) v[j] = in[first + j];
    if constexpr (Items == 1) {
      o[0] = block_inclusive_scan(temp, v[0], op, inclusive_running);
    } else {
      block_inclusive_scan(temp, v, o, op, inclusive_running);
    }
    for (int j = 0; j < Items; ++j) incl[first + j] = o[j];
    __syncthreads();
    if constexpr (Items == 1) {
      o[0] = block_exclusive_scan(temp, v[0], op, exclusive_running);
    } else {
      block_exclusive_scan(temp, v, o, op, exclusive_running);
    }
    for (int j = 0; j < Items; ++j) excl[first + j] = o[j];
    __syncthreads();
  }
}

template <int Threads, int Items, class T, class Op>
void check_walk(const std::vector<T>& host, T init, Op op) {
  CAPTURE(Threads);
  CAPTURE(Items);
  const int tiles = static_cast<int>(host.size()) / (Threads * Items);
  DeviceBuffer<T> in(host), incl(host.size()), excl(host.size());
  incl.poison();
  excl.poison();
  walk_tiles_kernel<Threads, Items><<<1, Threads>>>(in.get(), incl.get(), excl.get(), tiles, init, op);
  tilecraft::test::sync_and_check();
  const auto gi = incl.download(), ge = excl.download();
  int bad = 0;
  T acc = init;
  for (std::size_t i = 0; i < host.size(); ++i) {
    bad += !(ge[i] == acc);
    acc = op(acc, host[i]);
    bad += !(gi[i] == acc);
  }
  CHECK(bad == 0);
}

TEST_CASE("the prefix callback carries a running total across tiles") {
  check_walk<128, 1>(tilecraft::test::random_vector<int>(128 * 9, -50, 50, 71), 7, Sum{});
  check_walk<256, 4>(tilecraft::test::random_vector<int>(256 * 4 * 7, -50, 50, 72), 0, Sum{});
  check_walk<96, 5>(tilecraft::test::random_vector<int>(96 * 5 * 3, -50, 50, 73), -3, Max{});
  auto g = tilecraft::test::rng(74);
  std::vector<test::Affine> f(1024 * 2 * 5);
  for (auto& x : f) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  check_walk<1024, 2>(f, test::Affine{1u, 0u}, test::Compose{});
}
