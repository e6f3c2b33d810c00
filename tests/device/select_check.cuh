// select_if / partition against a host reference: the run (the kept count in device memory, a
// guard word after it), in place, and both launchers on one array (test_select.cu,
// test_select_items.cu).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include <tilecraft/device/select.cuh>

#include "test_util.cuh"

namespace select_tests {

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

// The kept count's type is Count, written into the first of two poisoned words (the second, a
// guard, must keep its poison).
template <bool Partition, class Policy = void, class Count = std::int64_t, class T, class Pred>
std::pair<std::vector<T>, std::int64_t> run_select(const T* d_in, std::int64_t n, Pred pred) {
  DeviceBuffer<T> out(static_cast<std::size_t>(n > 0 ? n : 1));
  DeviceBuffer<Count> count(2);
  out.poison();
  count.poison();
  std::size_t bytes = 0;
  if constexpr (Partition) {
    REQUIRE(partition<Policy>(nullptr, bytes, d_in, out.get(), count.get(), n, pred) == cudaSuccess);
  } else {
    REQUIRE(select_if<Policy>(nullptr, bytes, d_in, out.get(), count.get(), n, pred) == cudaSuccess);
  }
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();
  if constexpr (Partition) {
    REQUIRE(partition<Policy>(temp.get(), bytes, d_in, out.get(), count.get(), n, pred) == cudaSuccess);
  } else {
    REQUIRE(select_if<Policy>(temp.get(), bytes, d_in, out.get(), count.get(), n, pred) == cudaSuccess);
  }
  tilecraft::test::sync_and_check();
  auto all = out.download();
  all.resize(static_cast<std::size_t>(n));
  const auto counts = count.download();
  CHECK(tilecraft::test::same_bits(counts[1], tilecraft::test::poison_value<Count>()));
  return {all, static_cast<std::int64_t>(counts[0])};
}

// Whether Policy loads with CacheHint::streaming (the read-only path: no select_if in place).
template <class Policy>
constexpr bool streaming_loads() {
  if constexpr (std::is_void_v<Policy>) {
    return false;
  } else {
    return Policy::hint == CacheHint::streaming;
  }
}

// select_if in place (d_out == d_in, host[shift, end) on the device): the kept items in order
// at the front, the array from the kept count on (and before shift) as it was, the count; then
// partition on the same array is refused (cudaErrorInvalidValue) and writes nothing, the count
// included. With streaming loads select_if refuses the same array too.
template <class Policy = void, class T, class Pred>
void check_select_in_place(const std::vector<T>& host, std::size_t shift, Pred pred, const std::vector<T>& kept) {
  // (In place differs in global memory, which racecheck does not see, and by one shared byte a
  // thread, its own, stored before a barrier and next written after it: racecheck skips it.)
  if (tilecraft::test::racecheck_sized()) return;
  INFO("select_if in place");
  const std::int64_t n = static_cast<std::int64_t>(host.size() - shift);
  DeviceBuffer<T> data(host);
  DeviceBuffer<std::int64_t> count(2);
  count.poison();
  T* const d = data.get() + shift;
  std::size_t bytes = 0;
  REQUIRE(select_if<Policy>(nullptr, bytes, d, d, count.get(), n, pred) == cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();
  if (streaming_loads<Policy>() && n > 0) {
    CHECK(select_if<Policy>(temp.get(), bytes, d, d, count.get(), n, pred) == cudaErrorInvalidValue);
    tilecraft::test::sync_and_check();
    const auto untouched = data.download();
    CHECK(std::memcmp(untouched.data(), host.data(), host.size() * sizeof(T)) == 0);
    CHECK(tilecraft::test::same_bits(count.download()[0], tilecraft::test::poison_value<std::int64_t>()));
    return;
  }
  REQUIRE(select_if<Policy>(temp.get(), bytes, d, d, count.get(), n, pred) == cudaSuccess);
  tilecraft::test::sync_and_check();
  const auto got = data.download();
  const auto counts = count.download();
  CHECK(counts[0] == static_cast<std::int64_t>(kept.size()));
  CHECK(tilecraft::test::same_bits(counts[1], tilecraft::test::poison_value<std::int64_t>()));
  std::size_t bad = 0, changed = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) bad += !(got[shift + i] == kept[i]);
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (i < shift || i >= shift + kept.size()) changed += !tilecraft::test::same_bits(got[i], host[i]);
  }
  CHECK(bad == 0);
  CHECK(changed == 0);
  if (n == 0) return;
  std::size_t partition_bytes = 0;
  REQUIRE(partition<Policy>(nullptr, partition_bytes, d, d, count.get(), n, pred) == cudaSuccess);
  DeviceBuffer<unsigned char> partition_temp(partition_bytes);
  CHECK(partition<Policy>(partition_temp.get(), partition_bytes, d, d, count.get(), n, pred) == cudaErrorInvalidValue);
  tilecraft::test::sync_and_check();
  const auto after = data.download();
  CHECK(std::memcmp(after.data(), got.data(), got.size() * sizeof(T)) == 0);
  CHECK(count.download() == counts);
}

template <class Policy = void, class T, class Pred>
void check_select(const std::vector<T>& host, std::size_t shift, Pred pred) {
  const std::int64_t n = static_cast<std::int64_t>(host.size() - shift);
  DeviceBuffer<T> in(host);
  std::vector<T> kept, rejected;
  for (std::size_t i = shift; i < host.size(); ++i) (pred(host[i]) ? kept : rejected).push_back(host[i]);
  const auto [sel, count] = run_select<false, Policy>(in.get() + shift, n, pred);
  CHECK(count == static_cast<std::int64_t>(kept.size()));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) bad += !(sel[i] == kept[i]);
  CHECK(bad == 0);
  // select_if writes the kept items only: the rest of the output keeps its poison.
  std::size_t written_past = 0;
  for (std::size_t i = kept.size(); i < sel.size(); ++i) {
    written_past += !tilecraft::test::same_bits(sel[i], tilecraft::test::poison_value<T>());
  }
  CHECK(written_past == 0);
  check_select_in_place<Policy>(host, shift, pred, kept);
  const auto [part, pcount] = run_select<true, Policy>(in.get() + shift, n, pred);
  CHECK(pcount == static_cast<std::int64_t>(kept.size()));
  bad = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) bad += !(part[i] == kept[i]);
  // The rejected items after the kept ones, in reverse order.
  for (std::size_t i = 0; i < rejected.size(); ++i) bad += !(part[static_cast<std::size_t>(n) - 1 - i] == rejected[i]);
  CHECK(bad == 0);
}

}  // namespace select_tests
