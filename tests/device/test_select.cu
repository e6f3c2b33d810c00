// tilecraft::select_if and partition against a host reference and cub::DeviceSelect::If:
// predicates keeping none, all, every other and a random half of the items, a user struct,
// sizes across the tile edges, misaligned inputs, and the kept count in device memory.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <cub/device/device_select.cuh>

#include <tilecraft/device/select.cuh>

#include "ops.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

// mode 0: none, 1: all, 2: every other value (odd), 3: below a threshold (random half).
struct Keep {
  int mode;
  int threshold;
  __host__ __device__ bool operator()(int v) const {
    return mode == 0 ? false : mode == 1 ? true : mode == 2 ? (v & 1) != 0 : v < threshold;
  }
};

struct Particle {
  float x, y, z;
  std::int32_t id;
};
struct Inside {
  __host__ __device__ bool operator()(const Particle& p) const { return p.x * p.x + p.y * p.y + p.z * p.z < 1.0f; }
};
inline bool operator==(const Particle& a, const Particle& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.id == b.id;
}

template <bool Partition, class T, class Pred>
std::pair<std::vector<T>, std::int64_t> run_select(const T* d_in, std::int64_t n, Pred pred) {
  DeviceBuffer<T> out(static_cast<std::size_t>(n > 0 ? n : 1));
  DeviceBuffer<std::int64_t> count(1);
  out.poison();
  count.poison();
  std::size_t bytes = 0;
  if constexpr (Partition) {
    REQUIRE(partition(nullptr, bytes, d_in, out.get(), count.get(), n, pred) == cudaSuccess);
  } else {
    REQUIRE(select_if(nullptr, bytes, d_in, out.get(), count.get(), n, pred) == cudaSuccess);
  }
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();
  if constexpr (Partition) {
    REQUIRE(partition(temp.get(), bytes, d_in, out.get(), count.get(), n, pred) == cudaSuccess);
  } else {
    REQUIRE(select_if(temp.get(), bytes, d_in, out.get(), count.get(), n, pred) == cudaSuccess);
  }
  tilecraft::test::sync_and_check();
  auto all = out.download();
  all.resize(static_cast<std::size_t>(n));
  return {all, count.download()[0]};
}

template <class T, class Pred>
void check_select(const std::vector<T>& host, std::size_t shift, Pred pred) {
  const std::int64_t n = static_cast<std::int64_t>(host.size() - shift);
  DeviceBuffer<T> in(host);
  std::vector<T> kept, rejected;
  for (std::size_t i = shift; i < host.size(); ++i) (pred(host[i]) ? kept : rejected).push_back(host[i]);
  const auto [sel, count] = run_select<false>(in.get() + shift, n, pred);
  CHECK(count == static_cast<std::int64_t>(kept.size()));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) bad += !(sel[i] == kept[i]);
  CHECK(bad == 0);
  const auto [part, pcount] = run_select<true>(in.get() + shift, n, pred);
  CHECK(pcount == static_cast<std::int64_t>(kept.size()));
  bad = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) bad += !(part[i] == kept[i]);
  // The rejected items after the kept ones, in reverse order.
  for (std::size_t i = 0; i < rejected.size(); ++i) bad += !(part[static_cast<std::size_t>(n) - 1 - i] == rejected[i]);
  CHECK(bad == 0);
}

TEST_CASE("select_if and partition: none, all, alternating and random predicates at every size") {
  for (std::int64_t n :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{33}, std::int64_t{2047}, std::int64_t{2048},
        std::int64_t{2049}, std::int64_t{70001}, std::int64_t{(1 << 20) + 7}, std::int64_t{3 << 20}}) {
    for (std::size_t shift : {std::size_t{0}, std::size_t{1}}) {
      const auto host =
          tilecraft::test::random_vector<int>(static_cast<std::size_t>(n) + shift, 0, 1 << 20, 31 * n + shift);
      for (int mode = 0; mode < 4; ++mode) {
        CAPTURE(n);
        CAPTURE(shift);
        CAPTURE(mode);
        check_select(host, shift, Keep{mode, 1 << 19});
      }
    }
  }
}

TEST_CASE("select_if of a user struct, and agreement with cub::DeviceSelect::If") {
  for (std::int64_t n : {std::int64_t{5}, std::int64_t{4096 + 3}, std::int64_t{(1 << 20) + 3}}) {
    CAPTURE(n);
    auto g = tilecraft::test::rng(333 + n);
    std::vector<Particle> p(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < p.size(); ++i) {
      // Multiples of 1/8: the squared distance is exact on host and device (FMA or not).
      auto c = [&] { return static_cast<float>(static_cast<int>(g() % 17) - 8) / 8.0f; };
      p[i] = {c(), c(), c(), static_cast<std::int32_t>(i)};
    }
    check_select(p, 0, Inside{});

    const auto ints = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), 0, 1000, 444 + n);
    DeviceBuffer<int> in(ints), cub_out(ints.size());
    DeviceBuffer<std::int64_t> cub_count(1);
    cub_out.poison();  // (CUB writes only the kept items; the whole buffer is read back)
    std::size_t bytes = 0;
    const Keep half{3, 500};
    TILECRAFT_THROW_IF_ERROR(cub::DeviceSelect::If(nullptr, bytes, in.get(), cub_out.get(), cub_count.get(), n, half));
    DeviceBuffer<unsigned char> temp(bytes);
    TILECRAFT_THROW_IF_ERROR(
        cub::DeviceSelect::If(temp.get(), bytes, in.get(), cub_out.get(), cub_count.get(), n, half));
    tilecraft::test::sync_and_check();
    const auto [sel, count] = run_select<false>(in.get(), n, half);
    const std::int64_t want = cub_count.download()[0];
    CHECK(count == want);
    const auto ref = cub_out.download();
    std::size_t bad = 0;
    for (std::int64_t i = 0; i < want; ++i) bad += sel[static_cast<std::size_t>(i)] != ref[static_cast<std::size_t>(i)];
    CHECK(bad == 0);
  }
}
