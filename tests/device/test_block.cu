// The block level's reduce and scan against CUB's block primitives and host folds, in one
// translation unit (CUB's headers cost more compile time per unit than the cases).
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <vector>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <tilecraft/block/block_reduce.cuh>
#include <tilecraft/block/block_scan.cuh>
#include <tilecraft/util/functional.cuh>

#include "ops.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

// block_reduce / block_all_reduce against cub::BlockReduce and a host fold: both algorithms,
// block sizes from a partial warp to 1024 (powers of two, multiples of 32, neither), 2D and 3D
// blocks, valid_items, several items per thread, 16-bit floats, user types and an operator
// that is associative but not commutative.
namespace block_reduce_tests {

constexpr int items_per_thread = 3;

// Outputs per block: [0] reduce, [1] reduce over valid_items, [2] 3-items-per-thread reduce,
// [3] cub::BlockReduce (when comparable); per thread: all_reduce and all_reduce over valid.
// __launch_bounds__: a block of up to 1024 threads has at most 64 registers per thread, and
// without the bound ptxas may spend more (the .assert variant at -O1 did for 1000 threads, and
// its launch failed with cudaErrorLaunchOutOfResources).
template <int BlockThreads, BlockReduceAlgorithm Algo, bool WithCub, int BX, int BY, int BZ, class T, class Op>
__global__ void __launch_bounds__(BlockThreads)
    block_kernel(const T* in, const T* in3, T* per_block, T* all, T* all_valid, const int* valid, Op op) {
  __shared__ BlockReduceStorage<T, BlockThreads, Algo> temp;
  const int rank = thread_rank();
  const int b = blockIdx.x;
  const T v = in[b * BlockThreads + rank];
  T items[items_per_thread];
  for (int i = 0; i < items_per_thread; ++i) items[i] = in3[(b * BlockThreads + rank) * items_per_thread + i];

  T r0 = block_reduce(temp, v, op);
  __syncthreads();
  T r1 = block_reduce(temp, v, op, valid[b]);
  __syncthreads();
  T r2 = block_reduce(temp, items, op);
  __syncthreads();
  all[b * BlockThreads + rank] = block_all_reduce(temp, v, op);
  __syncthreads();
  all_valid[b * BlockThreads + rank] = block_all_reduce(temp, v, op, valid[b]);
  if constexpr (WithCub) {
    using CubReduce = cub::BlockReduce<T, BX, cub::BLOCK_REDUCE_WARP_REDUCTIONS, BY, BZ>;
    __shared__ typename CubReduce::TempStorage cub_temp;
    const T c = CubReduce(cub_temp).Reduce(v, op);
    if (rank == 0) per_block[b * 4 + 3] = c;
  }
  if (rank == 0) {
    per_block[b * 4 + 0] = r0;
    per_block[b * 4 + 1] = r1;
    per_block[b * 4 + 2] = r2;
  }
}

template <class T>
bool equal(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<float>(a) == static_cast<float>(b);
  } else {
    return a == b;
  }
}

// Host reference: fold in rank order in the accumulator type, then convert back to T.
template <class T, class Op>
T fold(const T* x, int n, Op op) {
  using Acc = block_accumulator_t<T>;
  Acc acc = static_cast<Acc>(x[0]);
  for (int i = 1; i < n; ++i) acc = static_cast<Acc>(op(acc, static_cast<Acc>(x[i])));
  return static_cast<T>(acc);
}

template <int BlockThreads, BlockReduceAlgorithm Algo, bool WithCub, int BX, int BY, int BZ, class T, class Op>
void check_block(const std::vector<T>& host, const std::vector<T>& host3, Op op, std::uint64_t salt) {
  static_assert(BX * BY * BZ == BlockThreads);
  const dim3 block(BX, BY, BZ);
  CAPTURE(BlockThreads);
  CAPTURE(static_cast<int>(Algo));
  const int blocks = static_cast<int>(host.size()) / BlockThreads;
  auto g = tilecraft::test::rng(salt);
  std::vector<int> valid(static_cast<std::size_t>(blocks));
  for (auto& v : valid) v = 1 + static_cast<int>(g() % BlockThreads);
  valid[0] = BlockThreads;
  if (blocks > 1) valid[1] = 1;
  DeviceBuffer<T> in(host), in3(host3), per_block(static_cast<std::size_t>(blocks) * 4), all(host.size()),
      all_valid(host.size());
  DeviceBuffer<int> d_valid(valid);
  per_block.poison();
  all.poison();
  all_valid.poison();
  block_kernel<BlockThreads, Algo, WithCub, BX, BY, BZ>
      <<<blocks, block>>>(in.get(), in3.get(), per_block.get(), all.get(), all_valid.get(), d_valid.get(), op);
  tilecraft::test::sync_and_check();
  const auto h_block = per_block.download(), h_all = all.download(), h_all_valid = all_valid.download();
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    const T* x = host.data() + static_cast<std::size_t>(b) * BlockThreads;
    const T ref = fold(x, BlockThreads, op);
    const T ref_valid = fold(x, valid[static_cast<std::size_t>(b)], op);
    const T ref3 = fold(host3.data() + static_cast<std::size_t>(b) * BlockThreads * items_per_thread,
                        BlockThreads * items_per_thread, op);
    bad += !equal(h_block[static_cast<std::size_t>(b) * 4 + 0], ref);
    bad += !equal(h_block[static_cast<std::size_t>(b) * 4 + 1], ref_valid);
    bad += !equal(h_block[static_cast<std::size_t>(b) * 4 + 2], ref3);
    if constexpr (WithCub) bad += !equal(h_block[static_cast<std::size_t>(b) * 4 + 3], ref);
    for (int t = 0; t < BlockThreads; ++t) {
      bad += !equal(h_all[static_cast<std::size_t>(b) * BlockThreads + t], ref);
      bad += !equal(h_all_valid[static_cast<std::size_t>(b) * BlockThreads + t], ref_valid);
    }
  }
  CHECK(bad == 0);
}

template <class T>
std::vector<T> small_ints(std::size_t n, int lo, int hi, std::uint64_t salt) {
  const auto ints = tilecraft::test::random_vector<int>(n, lo, hi, salt);
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(static_cast<float>(ints[i]));
  return out;
}

// Every block size runs the int sum (compared with CUB too) and one group of the other types and
// operators, the groups in turn across the sizes, so each group meets a partial warp, a
// multi-dimensional block and a large block (every group at every size would compile 160
// kernels for the same paths).
template <BlockReduceAlgorithm Algo, int Group, int BX, int BY = 1, int BZ = 1>
void check_block_size() {
  constexpr int BlockThreads = BX * BY * BZ;
  const std::size_t n = static_cast<std::size_t>(BlockThreads) * 9;
  const std::uint64_t s = BlockThreads * 100 + static_cast<int>(Algo);
  // int and integer-valued float/double: exact in any order, compared with CUB too.
  check_block<BlockThreads, Algo, true, BX, BY, BZ>(small_ints<int>(n, -1000, 1000, s),
                                                    small_ints<int>(n * 3, -9, 9, s + 1), Sum{}, s + 2);
  if constexpr (Group == 0) {
    check_block<BlockThreads, Algo, true, BX, BY, BZ>(small_ints<float>(n, -1000, 1000, s + 3),
                                                      small_ints<float>(n * 3, -9, 9, s + 4), Sum{}, s + 5);
    check_block<BlockThreads, Algo, true, BX, BY, BZ>(small_ints<double>(n, -99, 99, s + 6),
                                                      small_ints<double>(n * 3, -9, 9, s + 7), Max{}, s + 8);
  } else if constexpr (Group == 1) {
    check_block<BlockThreads, Algo, false, BX, BY, BZ>(small_ints<float>(n, -1000, 1000, s + 9),
                                                       small_ints<float>(n * 3, -9, 9, s + 10), Min{}, s + 11);
    // 16-bit floats accumulate in float: an integer sum up to 2^24 is exact there.
    check_block<BlockThreads, Algo, false, BX, BY, BZ>(small_ints<__half>(n, 0, 64, s + 12),
                                                       small_ints<__half>(n * 3, 0, 8, s + 13), Sum{}, s + 14);
    check_block<BlockThreads, Algo, false, BX, BY, BZ>(small_ints<__nv_bfloat16>(n, -64, 64, s + 15),
                                                       small_ints<__nv_bfloat16>(n * 3, 0, 8, s + 16), Sum{}, s + 17);
  } else {
    // An associative, non-commutative user type: warp_shuffle must combine in rank order.
    // (shared_tree pairs t with t + stride and is documented to need a commutative operator.)
    if constexpr (Algo == BlockReduceAlgorithm::warp_shuffle) {
      auto g = tilecraft::test::rng(s + 18);
      std::vector<test::Affine> f(n), f3(n * 3);
      for (auto& x : f) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
      for (auto& x : f3) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
      check_block<BlockThreads, Algo, false, BX, BY, BZ>(f, f3, test::Compose{}, s + 19);
      std::vector<std::uint32_t> q(n), q3(n * 3);
      for (auto& x : q) x = static_cast<std::uint32_t>(g()) | 0x10000u;
      for (auto& x : q3) x = static_cast<std::uint32_t>(g()) | 0x10000u;
      check_block<BlockThreads, Algo, false, BX, BY, BZ>(q, q3, test::ComposePacked{}, s + 22);
    }
    // A commutative 8-byte user type for both algorithms.
    auto h = tilecraft::test::rng(s + 20);
    std::vector<test::ArgMin> a(n), a3(n * 3);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = {static_cast<float>(h() % 100), static_cast<std::int32_t>(i)};
    for (std::size_t i = 0; i < a3.size(); ++i) a3[i] = {static_cast<float>(h() % 100), static_cast<std::int32_t>(i)};
    check_block<BlockThreads, Algo, false, BX, BY, BZ>(a, a3, test::ArgMinOp{}, s + 21);
  }
}

TEST_CASE_TEMPLATE_DEFINE("block_reduce at every block size", Algo, block_sizes) {
  constexpr BlockReduceAlgorithm A = Algo::value;
  check_block_size<A, 0, 17>();
  check_block_size<A, 1, 32>();
  check_block_size<A, 2, 64>();
  check_block_size<A, 0, 96>();
  check_block_size<A, 1, 100>();
  check_block_size<A, 1, 16, 8>();    // 2D
  check_block_size<A, 0, 8, 4, 8>();  // 3D
  check_block_size<A, 2, 512>();
  // 5 and 7 warps: the integer pairwise tree regroups the warps' partials (3 to 8 warps), with
  // a non-commutative operator (ComposePacked) that shows any change of order.
  check_block_size<A, 2, 160>();
  check_block_size<A, 2, 224>();
  check_block_size<A, 2, 1000>();
  check_block_size<A, 0, 1024>();
  check_block_size<A, 2, 4, 4, 4>();  // 3D
  // One partial warp of at most 16 lanes: the warps' partials come from a single warp.
  check_block_size<A, 1, 1>();
  check_block_size<A, 2, 5>();
  check_block_size<A, 0, 16>();
}
TEST_CASE_TEMPLATE_INVOKE(block_sizes, std::integral_constant<BlockReduceAlgorithm, BlockReduceAlgorithm::warp_shuffle>,
                          std::integral_constant<BlockReduceAlgorithm, BlockReduceAlgorithm::shared_tree>);

// A type with default member initializers (not trivially default constructible): the storage
// holds it as raw bytes. warp_shuffle with the non-commutative maps; shared_tree, which needs a
// commutative operator, with maps whose factor is 1 (translations commute).
TEST_CASE("block_reduce of a type with default member initializers") {
  auto f = test::random_affine_init(160 * 9, 31);
  auto f3 = test::random_affine_init(160 * 27, 32);
  check_block<160, BlockReduceAlgorithm::warp_shuffle, false, 160, 1, 1>(f, f3, test::ComposeInit{}, 33);
  for (auto& x : f) x.a = 1;
  for (auto& x : f3) x.a = 1;
  check_block<96, BlockReduceAlgorithm::shared_tree, false, 96, 1, 1>(f, f3, test::ComposeInit{}, 34);
}

// Real-valued floats: compare against a double reference with a bound derived from the
// reduction depth, not bitwise.
template <int BlockThreads>
__global__ void float_kernel(const float* in, float* out) {
  __shared__ BlockReduceStorage<float, BlockThreads> temp;
  const float r = block_reduce(temp, in[blockIdx.x * BlockThreads + threadIdx.x], Sum{});
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

TEST_CASE("block_reduce of real floats is within the rounding bound of a double sum") {
  constexpr int bt = 256, blocks = 64;
  const auto host = tilecraft::test::random_vector<float>(bt * blocks, -1.0, 1.0, 999);
  DeviceBuffer<float> in(host), out(blocks);
  out.poison();
  float_kernel<bt><<<blocks, bt>>>(in.get(), out.get());
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  for (int b = 0; b < blocks; ++b) {
    double ref = 0, abs_sum = 0;
    for (int t = 0; t < bt; ++t) {
      ref += host[static_cast<std::size_t>(b * bt + t)];
      abs_sum += std::fabs(host[static_cast<std::size_t>(b * bt + t)]);
    }
    CHECK(std::fabs(got[static_cast<std::size_t>(b)] - ref) <= tilecraft::test::sum_tolerance(abs_sum, 8 + 1, 0x1p-24));
  }
}

}  // namespace block_reduce_tests

// block_inclusive_scan / block_exclusive_scan against a host fold and cub::BlockScan: 1 to 16
// items per thread, 32 to 1024 threads (and block sizes that are not whole warps), both
// algorithms, the block aggregate, partial blocks, the prefix callback carrying a running total
// across tiles, and an operator that is associative but not commutative.
namespace block_scan_tests {

// Outputs per item: [0] inclusive, [1] exclusive from init, [2] partial inclusive, [3] partial
// exclusive; per block: the four aggregates. Items == 1 uses the one-value overloads for the
// full scans. WithCub: [4] cub::BlockScan's inclusive sum.
template <int Threads, int Items, BlockScanAlgorithm Algo, bool WithCub, class T, class Op>
__global__ void __launch_bounds__(Threads)
    block_scan_kernel(const T* in, T* out, T* aggregates, const int* valid, T init, Op op) {
  __shared__ BlockScanStorage<T, Threads, Algo> temp;
  const int b = blockIdx.x;
  const int t = thread_rank();  // (blocks of 1, 2 or 3 dimensions)
  const std::size_t first = (static_cast<std::size_t>(b) * Threads + t) * Items;
  T v[Items], o[Items];
  for (int j = 0; j < Items; ++j) v[j] = in[first + j];
  auto put = [&](int which, const T(&x)[Items]) {
    for (int j = 0; j < Items; ++j) out[(first + j) * 5 + which] = x[j];
  };
  T agg[4] = {};
  // Odd blocks of the scans without CUB beside them (every shape's non-commutative one among
  // them): the overloads without the block aggregate (agg[0] and agg[1] not checked there).
  const bool with_aggregate = WithCub || b % 2 == 0;
  if constexpr (Items == 1) {
    o[0] = with_aggregate ? block_inclusive_scan(temp, v[0], op, agg[0]) : block_inclusive_scan(temp, v[0], op);
    put(0, o);
    __syncthreads();
    o[0] = with_aggregate ? block_exclusive_scan(temp, v[0], op, init, agg[1])
                          : block_exclusive_scan(temp, v[0], op, init);
    put(1, o);
  } else {
    if (with_aggregate) {
      block_inclusive_scan(temp, v, o, op, agg[0]);
    } else {
      block_inclusive_scan(temp, v, o, op);
    }
    put(0, o);
    __syncthreads();
    if (with_aggregate) {
      block_exclusive_scan(temp, v, o, op, init, agg[1]);
    } else {
      block_exclusive_scan(temp, v, o, op, init);
    }
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

// The block is BlockX x BlockY x (Threads / BlockX / BlockY) threads (cub::BlockScan beside it
// takes 1-D blocks only).
template <int Threads, int Items, BlockScanAlgorithm Algo, bool WithCub, int BlockX = Threads, int BlockY = 1, class T,
          class Op>
void check_block_scan(const std::vector<T>& host, T init, Op op, std::uint64_t salt) {
  static_assert(Threads % (BlockX * BlockY) == 0 && (!WithCub || BlockX == Threads));
  CAPTURE(Threads);
  CAPTURE(Items);
  CAPTURE(BlockX);
  CAPTURE(BlockY);
  CAPTURE(static_cast<int>(Algo));
  constexpr int per_block = Threads * Items;
  const int blocks = static_cast<int>(host.size()) / per_block;
  auto g = tilecraft::test::rng(salt);
  std::vector<int> valid(static_cast<std::size_t>(blocks));
  for (auto& v : valid) v = 1 + static_cast<int>(g() % per_block);
  valid[0] = per_block;
  if (blocks > 1) valid[1] = 1;
  if (blocks > 2 && per_block > 1) valid[2] = per_block - 1;  // (a count of 0 breaks ValidItems' rule)
  DeviceBuffer<T> in(host), out(host.size() * 5), aggregates(static_cast<std::size_t>(blocks) * 4);
  DeviceBuffer<int> d_valid(valid);
  out.poison();
  aggregates.poison();
  const dim3 block(BlockX, BlockY, Threads / BlockX / BlockY);
  block_scan_kernel<Threads, Items, Algo, WithCub>
      <<<blocks, block>>>(in.get(), out.get(), aggregates.get(), d_valid.get(), init, op);
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
    if (WithCub || b % 2 == 0) {  // (the others ran the overloads without the aggregate)
      bad += !(aggs[static_cast<std::size_t>(b) * 4 + 0] == incl);
      bad += !(aggs[static_cast<std::size_t>(b) * 4 + 1] == incl);
    }
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
                          std::integral_constant<BlockScanAlgorithm, BlockScanAlgorithm::two_level>,
                          std::integral_constant<BlockScanAlgorithm, BlockScanAlgorithm::raking>);

// A type with default member initializers (not trivially default constructible, which the
// storage holds as raw bytes) through each algorithm, non-commutative maps.
TEST_CASE("block_scan of a type with default member initializers") {
  const test::AffineInit init{3u, 5u};
  check_block_scan<128, 4, BlockScanAlgorithm::warp_scans, false>(test::random_affine_init(128 * 4 * 5, 41), init,
                                                                  test::ComposeInit{}, 42);
  check_block_scan<96, 2, BlockScanAlgorithm::two_level, false>(test::random_affine_init(96 * 2 * 5, 43), init,
                                                                test::ComposeInit{}, 44);
  check_block_scan<256, 1, BlockScanAlgorithm::raking, false>(test::random_affine_init(256 * 5, 45), init,
                                                              test::ComposeInit{}, 46);
}

// Floating-point sums take the raking warp's own paths: the segment's running folds, each
// element written back as x op fold (float and double: a predicated add for raking lane 0, or
// the identity), and segments spread over the banks (4- and 8-byte T at power-of-two blocks).
// Small integers are exact in any association, so every output must equal the host fold and
// cub::BlockScan's.
template <int Threads, int Items, class T>
void check_real_shape() {
  const std::size_t n = static_cast<std::size_t>(Threads) * Items * 5;
  const std::uint64_t s = Threads * 100 + Items * 7 + sizeof(T);
  check_block_scan<Threads, Items, BlockScanAlgorithm::raking, true>(
      block_reduce_tests::small_ints<T>(n, -1000, 1000, s), T(0.5), Sum{}, s + 1);
}

TEST_CASE("block_scan of floats and doubles: the raking warp's running folds and spread segments") {
  check_real_shape<64, 2, float>();   // segments of 2, spread 16
  check_real_shape<128, 1, float>();  // one item: the raking warp writes the results
  check_real_shape<256, 1, float>();
  check_real_shape<256, 4, float>();  // from the identity
  check_real_shape<512, 1, float>();
  check_real_shape<128, 16, float>();  // the segment read again on the way down
  check_real_shape<96, 3, float>();    // segments of 3: not spread
  check_real_shape<128, 1, double>();
  check_real_shape<256, 4, double>();  // 8-byte T: spread 2
}

TEST_CASE("block_scan with the automatic algorithm, odd block sizes and many items") {
  check_shape<96, 3, BlockScanAlgorithm::automatic>();
  check_shape<17, 7, BlockScanAlgorithm::automatic>();
  check_shape<200, 3, BlockScanAlgorithm::raking>();  // raking lanes 29 to 31 rake nothing
  check_shape<512, 1, BlockScanAlgorithm::automatic>();
  check_shape<1024, 16, BlockScanAlgorithm::automatic>();
}

// Threads counted across 2-D and 3-D blocks, full scans whose last warp is partial (100
// threads), and a non-commutative operator on a 16-byte type (shuffled as four words; raking
// spreads its segments at 64 and 128 threads).
template <int Threads, int Items, BlockScanAlgorithm Algo, int BlockX, int BlockY>
void check_shape_dims() {
  const std::size_t n = static_cast<std::size_t>(Threads) * Items * 5;
  const std::uint64_t s = Threads * 100 + Items * 7 + static_cast<int>(Algo) + BlockX * 10000 + BlockY;
  check_block_scan<Threads, Items, Algo, false, BlockX, BlockY>(tilecraft::test::random_vector<int>(n, -1000, 1000, s),
                                                                0, Sum{}, s + 1);
  auto g = tilecraft::test::rng(s + 2);
  std::vector<test::Affine> f(n);
  for (auto& x : f) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  check_block_scan<Threads, Items, Algo, false, BlockX, BlockY>(f, test::Affine{3u, 5u}, test::Compose{}, s + 3);
}

template <int Threads, int Items, BlockScanAlgorithm Algo>
void check_shape_16_bytes() {
  const std::size_t n = static_cast<std::size_t>(Threads) * Items * 5;
  auto g = tilecraft::test::rng(Threads * 31 + Items);
  std::vector<test::Affine64> f(n);
  for (auto& x : f) x = {g() | 1u, g()};
  check_block_scan<Threads, Items, Algo, false>(f, test::Affine64{3u, 5u}, test::Compose64{}, Threads + Items);
}

TEST_CASE("block_scan in 2-D and 3-D blocks, full scans over a partial last warp, a 16-byte type") {
  check_shape_dims<100, 3, BlockScanAlgorithm::warp_scans, 20, 5>();
  check_shape_dims<100, 3, BlockScanAlgorithm::two_level, 10, 5>();  // 10 x 5 x 2
  check_shape_dims<100, 2, BlockScanAlgorithm::raking, 25, 2>();     // 25 x 2 x 2
  check_shape_dims<256, 4, BlockScanAlgorithm::automatic, 16, 16>();
  check_shape<48, 2, BlockScanAlgorithm::raking>();            // 24 segments of 2 threads: lanes 24 to 31 rake nothing
  check_shape_16_bytes<64, 2, BlockScanAlgorithm::raking>();   // spread 4
  check_shape_16_bytes<128, 1, BlockScanAlgorithm::raking>();  // spread 2
  check_shape_16_bytes<256, 3, BlockScanAlgorithm::warp_scans>();
  check_shape_16_bytes<96, 2, BlockScanAlgorithm::two_level>();
}

TEST_CASE("block_scan in blocks of one partial warp (1 to 16 threads)") {
  check_shape<1, 1, BlockScanAlgorithm::automatic>();
  check_shape<1, 5, BlockScanAlgorithm::warp_scans>();
  // (One warp: raking hands the scan to the warp-scans path, so no lane rakes here; raking
  // lanes with nothing to rake are met at 200 threads and in the partial scans.)
  check_shape<5, 3, BlockScanAlgorithm::raking>();
  check_shape<7, 2, BlockScanAlgorithm::two_level>();
  check_shape<16, 4, BlockScanAlgorithm::raking>();
}

// The prefix callback: one block walks `tiles` tiles in order, carrying the running total.
// junk_off_lane0: lanes other than 0 return `junk` (every lane of the first warp calls the
// callback; only lane 0's return value may count).
template <class T, class Op>
struct Running {
  T total;
  bool started;
  Op op;
  bool junk_off_lane0 = false;
  T junk{};
  __device__ T operator()(const T& block_aggregate) {
    const T before = total;
    total = started ? op(total, block_aggregate) : block_aggregate;
    started = true;
    return junk_off_lane0 && threadIdx.x % 32 != 0 ? junk : before;
  }
};

template <int Threads, int Items, BlockScanAlgorithm Algo, class T, class Op>
__global__ void __launch_bounds__(Threads)
    walk_tiles_kernel(const T* in, T* incl, T* excl, int tiles, T init, Op op, T junk) {
  __shared__ BlockScanStorage<T, Threads, Algo> temp;
  Running<T, Op> inclusive_running{init, true, op, true, junk};
  Running<T, Op> exclusive_running{init, true, op, true, junk};
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

template <int Threads, int Items, BlockScanAlgorithm Algo = BlockScanAlgorithm::automatic, class T, class Op>
void check_walk(const std::vector<T>& host, T init, Op op, T junk) {
  CAPTURE(Threads);
  CAPTURE(Items);
  CAPTURE(static_cast<int>(Algo));
  const int tiles = static_cast<int>(host.size()) / (Threads * Items);
  DeviceBuffer<T> in(host), incl(host.size()), excl(host.size());
  incl.poison();
  excl.poison();
  walk_tiles_kernel<Threads, Items, Algo><<<1, Threads>>>(in.get(), incl.get(), excl.get(), tiles, init, op, junk);
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

// (Lanes 1 to 31 of the first warp return junk from the callback: lane 0's value is the prefix.)
TEST_CASE("the prefix callback carries a running total across tiles") {
  check_walk<128, 1>(tilecraft::test::random_vector<int>(128 * 9, -50, 50, 71), 7, Sum{}, 77777);
  check_walk<256, 4>(tilecraft::test::random_vector<int>(256 * 4 * 7, -50, 50, 72), 0, Sum{}, -88888);
  check_walk<96, 5>(tilecraft::test::random_vector<int>(96 * 5 * 3, -50, 50, 73), -3, Max{}, 99999);
  check_walk<32, 3>(tilecraft::test::random_vector<int>(32 * 3 * 4, -50, 50, 75), 1, Sum{}, 66666);  // one warp
  auto g = tilecraft::test::rng(74);
  std::vector<test::Affine> f(1024 * 2 * 5);
  for (auto& x : f) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  check_walk<1024, 2>(f, test::Affine{1u, 0u}, test::Compose{}, test::Affine{12345u, 678u});
  // Each algorithm with the callback on full scans: warp_scans; raking over a partial last warp
  // (100 threads); a block of one partial warp (20 threads: the callback's shuffle under the
  // tail's mask).
  check_walk<128, 2, BlockScanAlgorithm::warp_scans>(tilecraft::test::random_vector<int>(128 * 2 * 5, -50, 50, 76), 4,
                                                     Sum{}, 55555);
  std::vector<test::Affine> f100(100 * 2 * 5);
  for (auto& x : f100) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  check_walk<100, 2, BlockScanAlgorithm::raking>(f100, test::Affine{3u, 5u}, test::Compose{}, test::Affine{7u, 9u});
  check_walk<20, 3, BlockScanAlgorithm::automatic>(tilecraft::test::random_vector<int>(20 * 3 * 6, -50, 50, 77), -9,
                                                   Sum{}, 44444);
}

// Partial scans promise that the items past the valid ones never reach op: here they hold a
// marker, and an operator that sees it raises a flag. Every seed (none, init, a prefix
// callback, for the inclusive and the exclusive scan), blocks that are not whole warps (the warp scans' partial last
// warp), and valid counts that end inside a warp, at a warp's end, at one item and at the whole block.
constexpr int ignored_item = -2147483000;
struct FlaggingSum {
  unsigned* misuse;
  __device__ int operator()(int a, int b) const {
    if (a == ignored_item || b == ignored_item) atomicOr(misuse, 1u);
    return a + b;
  }
};

template <int Threads, int Items, BlockScanAlgorithm Algo>
__global__ void __launch_bounds__(Threads)
    partial_scan_kernel(const int* in, int* out, int* aggregates, const int* valid, FlaggingSum op) {
  __shared__ BlockScanStorage<int, Threads, Algo> temp;
  const int b = blockIdx.x;
  const int t = threadIdx.x;
  const std::size_t first = (static_cast<std::size_t>(b) * Threads + t) * Items;
  int v[Items], o[Items];
  for (int j = 0; j < Items; ++j) v[j] = t * Items + j < valid[b] ? in[first + j] : ignored_item;
  int agg[2];
  block_inclusive_scan(temp, v, o, op, ValidItems{valid[b]}, agg[0]);
  for (int j = 0; j < Items; ++j) out[(first + j) * 4] = o[j];
  __syncthreads();
  block_exclusive_scan(temp, v, o, op, 5, ValidItems{valid[b]}, agg[1]);
  for (int j = 0; j < Items; ++j) out[(first + j) * 4 + 1] = o[j];
  __syncthreads();
  Running<int, FlaggingSum> running{-4, true, op, true, 424242};  // (lanes 1 to 31 return junk)
  block_inclusive_scan(temp, v, o, op, ValidItems{valid[b]}, running);
  for (int j = 0; j < Items; ++j) out[(first + j) * 4 + 2] = o[j];
  __syncthreads();
  Running<int, FlaggingSum> exclusive_running{-7, true, op, true, -424242};
  block_exclusive_scan(temp, v, o, op, ValidItems{valid[b]}, exclusive_running);
  for (int j = 0; j < Items; ++j) out[(first + j) * 4 + 3] = o[j];
  if (t == 0) {
    aggregates[b * 4] = agg[0];
    aggregates[b * 4 + 1] = agg[1];
    aggregates[b * 4 + 2] = running.total;
    aggregates[b * 4 + 3] = exclusive_running.total;
  }
}

template <int Threads, int Items, BlockScanAlgorithm Algo>
void check_partial_guarded(std::uint64_t salt) {
  CAPTURE(Threads);
  CAPTURE(Items);
  CAPTURE(static_cast<int>(Algo));
  constexpr int per_block = Threads * Items;
  auto g = tilecraft::test::rng(salt);
  // Counts past the block's items take them all (a last tile's n - start may run past it).
  std::vector<int> valid{1, per_block, per_block - 1, Items * 32, Items * 32 + 1, per_block + 7, INT_MAX};
  for (int i = 0; i < 11; ++i) valid.push_back(1 + static_cast<int>(g() % per_block));
  for (auto& v : valid) v = v < 1 ? 1 : v;
  const int blocks = static_cast<int>(valid.size());
  const auto host =
      tilecraft::test::random_vector<int>(static_cast<std::size_t>(blocks) * per_block, -1000, 1000, salt);
  DeviceBuffer<int> in(host), out(host.size() * 4), aggregates(static_cast<std::size_t>(blocks) * 4), d_valid(valid);
  DeviceBuffer<unsigned> misuse(1);
  out.poison();
  aggregates.poison();
  TILECRAFT_THROW_IF_ERROR(cudaMemset(misuse.get(), 0, sizeof(unsigned)));
  partial_scan_kernel<Threads, Items, Algo>
      <<<blocks, Threads>>>(in.get(), out.get(), aggregates.get(), d_valid.get(), FlaggingSum{misuse.get()});
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  const auto aggs = aggregates.download();
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    const std::size_t first = static_cast<std::size_t>(b) * per_block;
    int incl = 0;
    for (int i = 0; i < std::min(valid[static_cast<std::size_t>(b)], per_block); ++i) {
      const std::size_t k = first + static_cast<std::size_t>(i);
      bad += got[k * 4 + 1] != 5 + incl;
      bad += got[k * 4 + 3] != -7 + incl;
      incl += host[k];
      bad += got[k * 4] != incl;
      bad += got[k * 4 + 2] != -4 + incl;
    }
    bad += aggs[static_cast<std::size_t>(b) * 4] != incl;
    bad += aggs[static_cast<std::size_t>(b) * 4 + 1] != incl;
    bad += aggs[static_cast<std::size_t>(b) * 4 + 2] != -4 + incl;
    bad += aggs[static_cast<std::size_t>(b) * 4 + 3] != -7 + incl;
  }
  CHECK(bad == 0);
  CHECK(misuse.download()[0] == 0u);
}

TEST_CASE("partial block scans never pass an ignored item to the operator") {
  check_partial_guarded<100, 3, BlockScanAlgorithm::warp_scans>(81);  // a partial last warp
  check_partial_guarded<100, 3, BlockScanAlgorithm::two_level>(82);
  check_partial_guarded<100, 3, BlockScanAlgorithm::raking>(83);
  check_partial_guarded<32, 2, BlockScanAlgorithm::warp_scans>(84);  // one warp
  check_partial_guarded<1024, 2, BlockScanAlgorithm::two_level>(85);
  check_partial_guarded<256, 4, BlockScanAlgorithm::raking>(86);
}

// Types under 4 bytes: the raking grid's pass arithmetic (no words of T to spread over), sums
// wrapping modulo 2^8 and 2^16 the same way on both sides.
TEST_CASE("block_scan of 1- and 2-byte integers") {
  check_block_scan<128, 4, BlockScanAlgorithm::raking, false>(
      tilecraft::test::random_vector<unsigned char>(128 * 4 * 5, 0, 255, 91), static_cast<unsigned char>(3), Sum{}, 92);
  check_block_scan<256, 1, BlockScanAlgorithm::automatic, false>(
      tilecraft::test::random_vector<unsigned short>(256 * 5, 0, 65535, 93), static_cast<unsigned short>(7), Sum{}, 94);
  check_block_scan<96, 2, BlockScanAlgorithm::warp_scans, false>(
      tilecraft::test::random_vector<signed char>(96 * 2 * 5, -100, 100, 95), static_cast<signed char>(-1), Max{}, 96);
}

}  // namespace block_scan_tests
