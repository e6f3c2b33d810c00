// select_if and partition of items no other select test has: sizes that are no power of two
// (3, 12 and 24 bytes) and an alignment above the stage's 16-byte vectors (32), with a predicate
// that must be called on const items. Against a host reference (select_check.cuh); a unit of its
// own so that test_select's, already one of the GPU check's longest compiles, does not grow.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "select_check.cuh"
#include "test_util.cuh"

namespace select_tests {

// An item that asks for 32-byte alignment (more than the stage's 16-byte vectors), and a
// predicate with an overload on a mutable item that would change it: the kernels call the
// predicate on a const item, the form select_if's rule names, so that overload is never taken.
struct alignas(32) Aligned32 {
  std::int32_t key;
  float payload[5];
};
static_assert(sizeof(Aligned32) == 32 && alignof(Aligned32) == 32);
inline bool operator==(const Aligned32& a, const Aligned32& b) {
  return a.key == b.key && std::memcmp(a.payload, b.payload, sizeof(a.payload)) == 0;
}
struct KeyOdd {
  __host__ __device__ bool operator()(const Aligned32& a) const { return (a.key & 1) != 0; }
  __host__ __device__ bool operator()(Aligned32& a) const {
    a.key = -2;  // (kept by no reference; its items would come out changed)
    return true;
  }
};

TEST_CASE("select_if of 32-byte-aligned items, the predicate called on const items only") {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{70001}}) {
    CAPTURE(n);
    auto g = tilecraft::test::rng(515 + n);
    std::vector<Aligned32> items(static_cast<std::size_t>(n) + 1);
    for (std::size_t i = 0; i < items.size(); ++i) {
      items[i].key = static_cast<std::int32_t>(g() % 1000);
      for (int c = 0; c < 5; ++c) items[i].payload[c] = static_cast<float>(i) + 0.25f * static_cast<float>(c);
    }
    const std::vector<Aligned32>& host = items;  // (the reference calls the const overload too)
    check_select(host, 0, KeyOdd{});
    check_select(host, 1, KeyOdd{});
  }
}

// Items of sizes that are no power of two: 3 bytes (alignment 1), 12 (4) and 24 (8), each a
// key and a payload that tells the items apart.
struct Item3 {
  unsigned char key, payload[2];
};
struct Item12 {
  std::int32_t key, payload[2];
};
struct Item24 {
  std::int64_t key;
  std::int32_t payload[4];
};
static_assert(sizeof(Item3) == 3 && sizeof(Item12) == 12 && sizeof(Item24) == 24 && alignof(Item24) == 8);
template <class T>
bool operator==(const T& a, const T& b) requires(std::is_same_v<T, Item3> || std::is_same_v<T, Item12> ||
                                                 std::is_same_v<T, Item24>) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
struct KeyEven {
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    return x.key % 2 == 0;
  }
};

template <class T>
void check_odd_item(std::uint64_t salt) {
  CAPTURE(sizeof(T));
  std::vector<std::int64_t> sizes = {1, 31, 4095, 4097, 70001};
  if (!tilecraft::test::sanitizer_sized()) sizes.push_back((std::int64_t{1} << 20) + 3);
  for (std::int64_t n : sizes) {
    CAPTURE(n);
    auto g = tilecraft::test::rng(salt + static_cast<std::uint64_t>(n));
    std::vector<T> host(static_cast<std::size_t>(n) + 1);
    for (std::size_t i = 0; i < host.size(); ++i) {
      std::memset(&host[i], 0, sizeof(T));
      host[i].key = static_cast<decltype(host[i].key)>(g() % 100);
      host[i].payload[0] = static_cast<std::remove_reference_t<decltype(host[i].payload[0])>>(i);
      host[i].payload[1] = static_cast<std::remove_reference_t<decltype(host[i].payload[1])>>(i >> 8);
    }
    check_select(host, 0, KeyEven{});
    check_select(host, 1, KeyEven{});
  }
}

TEST_CASE("select_if and partition of 3-, 12- and 24-byte items, in place and shifted") {
  check_odd_item<Item3>(900);
  check_odd_item<Item12>(901);
  check_odd_item<Item24>(902);
}

}  // namespace select_tests
