// The device cache's kernel entries (util/device_cache.cuh), without a GPU: a fixed table of
// kernel_entry_slots entries, linearly probed, each claimed by one writer with a
// compare-and-swap and published with a release store. Keys that differ in any one field are
// different entries; a stored entry is found with its value; an entry never found reads 0,
// never another key's value, also where the table is full around a key; threads that store
// and read the same and different keys at once all end up reading what was stored.
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include <tilecraft/util/device_cache.cuh>

namespace {
using tilecraft::detail::KernelKey;

// A key of fake kernel addresses (never dereferenced): `salt` keeps each part's keys
// apart from the others' in the process's one table.
KernelKey key_of(std::uint64_t salt, std::uint64_t i, int device = 0, int threads = 128, std::size_t bytes = 0) {
  const auto address = static_cast<std::uintptr_t>((salt << 32) + 0x1000 + 16 * i);
  return KernelKey{reinterpret_cast<const void*>(address), device, threads, bytes};
}

// The value stored for key i: never 0 (0 reads as "no entry").
int value_of(std::uint64_t i) { return static_cast<int>(i % 1000003) + 1; }

// Reads keys 0 ... keys - 1 of `salt` back: how many read another value than value_of(i)
// (never right), and how many read 0 (not kept).
struct ReadBack {
  int wrong = 0;
  int missing = 0;
};
ReadBack read_back(std::uint64_t salt, std::uint64_t keys) {
  ReadBack r;
  for (std::uint64_t i = 0; i < keys; ++i) {
    const int got = tilecraft::detail::kernel_entry(key_of(salt, i));
    r.missing += got == 0;
    r.wrong += got != 0 && got != value_of(i);
  }
  return r;
}
}  // namespace

// One test case whose parts run in this order: the process has one table, and the last part
// fills it.
TEST_CASE("device cache: kernel entries stored and found, from many threads at once, then in a full table") {
  {  // One thread: every key found with its value, absent ones and near misses read 0.
    using tilecraft::detail::kernel_entry;
    using tilecraft::detail::store_kernel_entry;
    constexpr std::uint64_t salt = 1;
    constexpr std::uint64_t keys = 600;
    for (std::uint64_t i = 0; i < keys; ++i) CHECK(kernel_entry(key_of(salt, i)) == 0);
    for (std::uint64_t i = 0; i < keys; ++i) store_kernel_entry(key_of(salt, i), value_of(i));
    const ReadBack r = read_back(salt, keys);
    CHECK(r.wrong == 0);
    CHECK(r.missing == 0);  // 600 of 4096 slots: every key finds a slot near its own
    // Keys that differ in one field only are other entries.
    const KernelKey k = key_of(salt, 7, 3, 256, 4096);
    store_kernel_entry(k, 11);
    CHECK(kernel_entry(k) == 11);
    CHECK(kernel_entry(key_of(salt, 7, 2, 256, 4096)) == 0);
    CHECK(kernel_entry(key_of(salt, 7, 3, 128, 4096)) == 0);
    CHECK(kernel_entry(key_of(salt, 7, 3, 256, 4097)) == 0);
    CHECK(kernel_entry(key_of(salt, 8, 3, 256, 4096)) == 0);
    // Keys that differ in one field and start their probe at the same slot (found by search):
    // the second walks past the first (KernelKey's ==), reads 0, then has its own entry.
    using tilecraft::detail::kernel_entry_home;
    using tilecraft::detail::kernel_entry_slots;
    const auto slot_of = [](const KernelKey& key) { return kernel_entry_home(key) % kernel_entry_slots; };
    const KernelKey first = key_of(salt, 1000, 5, 96, 512);
    KernelKey colliders[3] = {};
    int found = 0;
    for (std::uint64_t i = 1001; i < (std::uint64_t{1} << 22) && found == 0; ++i) {  // the kernel
      const KernelKey c = key_of(salt, i, 5, 96, 512);
      if (slot_of(c) == slot_of(first)) colliders[found++] = c;
    }
    for (int threads = 97; threads < (1 << 22) && found == 1; ++threads) {  // the threads
      const KernelKey c = key_of(salt, 1000, 5, threads, 512);
      if (slot_of(c) == slot_of(first)) colliders[found++] = c;
    }
    for (std::size_t bytes = 513; bytes < (std::size_t{1} << 22) && found == 2; ++bytes) {  // the bytes
      const KernelKey c = key_of(salt, 1000, 5, 96, bytes);
      if (slot_of(c) == slot_of(first)) colliders[found++] = c;
    }
    REQUIRE(found == 3);
    store_kernel_entry(first, 21);
    for (int c = 0; c < 3; ++c) CHECK(kernel_entry(colliders[c]) == 0);
    for (int c = 0; c < 3; ++c) store_kernel_entry(colliders[c], 22 + c);
    CHECK(kernel_entry(first) == 21);
    for (int c = 0; c < 3; ++c) CHECK(kernel_entry(colliders[c]) == 22 + c);
    // Storing a key again keeps the one entry.
    store_kernel_entry(k, 11);
    CHECK(kernel_entry(k) == 11);
  }
  {  // Threads storing and reading the same and their own keys at once.
    using tilecraft::detail::kernel_entry;
    using tilecraft::detail::store_kernel_entry;
    constexpr std::uint64_t shared_salt = 3;
    constexpr int threads = 8;
    constexpr std::uint64_t shared_keys = 200, own_keys = 100;
    std::atomic<int> wrong{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([t, &wrong] {
        const auto own_salt = static_cast<std::uint64_t>(100 + t);
        int bad = 0;
        for (std::uint64_t round = 0; round < 4; ++round) {
          for (std::uint64_t i = 0; i < shared_keys; ++i) {
            // Start at different keys, so that threads claim slots against each other.
            const std::uint64_t j = (i + static_cast<std::uint64_t>(t) * 37) % shared_keys;
            const int seen = kernel_entry(key_of(shared_salt, j));
            bad += seen != 0 && seen != value_of(j);
            store_kernel_entry(key_of(shared_salt, j), value_of(j));
          }
          for (std::uint64_t i = 0; i < own_keys; ++i) {
            store_kernel_entry(key_of(own_salt, i), value_of(i + 7));
            const int seen = kernel_entry(key_of(own_salt, i));
            bad += seen != value_of(i + 7);  // its own store, published before it reads
          }
        }
        wrong += bad;
      });
    }
    for (auto& th : pool) th.join();
    CHECK(wrong.load() == 0);
    const ReadBack r = read_back(shared_salt, shared_keys);
    CHECK(r.wrong == 0);
    CHECK(r.missing == 0);
  }
  {  // A full table keeps what fits and never answers with another key's value.
    using tilecraft::detail::kernel_entry;
    using tilecraft::detail::kernel_entry_slots;
    using tilecraft::detail::store_kernel_entry;
    constexpr std::uint64_t salt = 2;
    const auto keys = static_cast<std::uint64_t>(2 * kernel_entry_slots);
    for (std::uint64_t i = 0; i < keys; ++i) store_kernel_entry(key_of(salt, i), value_of(i));
    const ReadBack r = read_back(salt, keys);
    const auto kept = static_cast<int>(keys) - r.missing;
    CHECK(r.wrong == 0);
    CHECK(kept > 0);
    CHECK(kept <= kernel_entry_slots);
    MESSAGE(kept << " of " << keys << " keys kept in a table of " << kernel_entry_slots);
  }
}
