#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <random>

#include <tilecraft/util/launch.cuh>
#include <tilecraft/util/math.cuh>
#include <tilecraft/warp/warp_reduce.cuh>

#include "test_util.cuh"

using namespace tilecraft;

TEST_CASE("ceil_div and round_up agree with their definitions on random operands") {
  auto g = tilecraft::test::rng(1);  // the printed seed (TILECRAFT_TEST_SEED replays it)
  std::uniform_int_distribution<std::int64_t> a_dist(0, std::int64_t{1} << 40);
  std::uniform_int_distribution<std::int64_t> b_dist(1, 1 << 20);
  for (int i = 0; i < 10000; ++i) {
    const std::int64_t a = a_dist(g);
    const std::int64_t b = b_dist(g);
    const std::int64_t q = ceil_div(a, b);
    CHECK(q * b >= a);
    CHECK((q - 1) * b < a + (a == 0 ? b : 0));
    CHECK(round_up(a, b) == q * b);
  }
  CHECK(ceil_div(0, 7) == 0);
  CHECK(ceil_div(1, 7) == 1);
  CHECK(ceil_div(7, 7) == 1);
  CHECK(ceil_div(8, 7) == 2);
}

TEST_CASE("power-of-two helpers") {
  for (int x = 1; x < 5000; ++x) {
    int p = 1;
    while (p * 2 <= x) p *= 2;
    CHECK(pow2_floor(x) == p);
    CHECK(pow2_ceil(x) == (p == x ? p : 2 * p));
    CHECK(is_pow2(x) == (p == x));
    CHECK((1 << log2_floor(x)) == p);
  }
  CHECK_FALSE(is_pow2(0));
  CHECK_FALSE(is_pow2(-4));
  static_assert(ceil_div(10, 3) == 4 && pow2_ceil(33) == 64 && log2_floor(1024) == 10);
  // Above the largest power of two a type holds: that power (the loop once ran forever there).
  CHECK(pow2_ceil(INT_MAX) == 1 << 30);
  CHECK(pow2_ceil((1 << 30) + 1) == 1 << 30);
  CHECK(pow2_ceil(static_cast<signed char>(100)) == 64);
  CHECK(pow2_ceil(static_cast<unsigned char>(200)) == 128);
  CHECK(pow2_ceil(~0ull) == 1ull << 63);
  CHECK(pow2_ceil(std::int64_t{3}) == 4);
}

TEST_CASE("max_smem_per_block_optin follows the programming guide's table") {
  CHECK(tilecraft::max_smem_per_block_optin(7, 5) == 64 * 1024);
  CHECK(tilecraft::max_smem_per_block_optin(8, 0) == 163 * 1024);
  CHECK(tilecraft::max_smem_per_block_optin(8, 6) == 99 * 1024);
  CHECK(tilecraft::max_smem_per_block_optin(8, 9) == 99 * 1024);
  CHECK(tilecraft::max_smem_per_block_optin(9, 0) == 227 * 1024);
  CHECK(tilecraft::max_smem_per_block_optin(7, 0) == 0);  // below sm_75: not supported
  static_assert(tilecraft::max_smem_per_block_optin(9, 0) == tilecraft::max_smem_per_block);
}

TEST_CASE("redux_identity: what a lane outside the valid ones adds, for every operator and integer") {
  auto check = []<class T>(T) {
    CHECK(detail::redux_identity<T, Sum>() == T{0});
    CHECK(detail::redux_identity<T, Min>() == std::numeric_limits<T>::max());
    CHECK(detail::redux_identity<T, Max>() == std::numeric_limits<T>::lowest());
  };
  check(int{});
  check(unsigned{});
  check(std::int64_t{});
  check(std::uint64_t{});
  check(std::int8_t{});
}
