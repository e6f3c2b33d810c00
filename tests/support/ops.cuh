// Operators and value types shared by the reduction tests.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include <tilecraft/config.cuh>

#include "test_util.cuh"

namespace tilecraft::test {

//! The affine map x -> a*x + b over uint32 (wrapping). Composition is associative but not
//! commutative, so it catches reductions that combine out of order.
struct Affine {
  std::uint32_t a;
  std::uint32_t b;
};
//! compose(f, g) = "f then g": x -> g.a * (f.a * x + f.b) + g.b.
struct Compose {
  TILECRAFT_HOST_DEVICE constexpr Affine operator()(const Affine& f, const Affine& g) const {
    return Affine{g.a * f.a, g.a * f.b + g.b};
  }
};
inline bool operator==(const Affine& x, const Affine& y) { return x.a == y.a && x.b == y.b; }

//! Affine with default member initializers (the identity map): trivially copyable but not
//! trivially default constructible, as users' structs often are (CUB's algorithms take them).
struct AffineInit {
  std::uint32_t a = 1;
  std::uint32_t b = 0;
};
static_assert(std::is_trivially_copyable_v<AffineInit> && !std::is_trivially_default_constructible_v<AffineInit>);
struct ComposeInit {
  TILECRAFT_HOST_DEVICE constexpr AffineInit operator()(const AffineInit& f, const AffineInit& g) const {
    return AffineInit{g.a * f.a, g.a * f.b + g.b};
  }
};
inline bool operator==(const AffineInit& x, const AffineInit& y) { return x.a == y.a && x.b == y.b; }
//! Random maps with odd factors (no product collapses to 0).
inline std::vector<AffineInit> random_affine_init(std::size_t n, std::uint64_t salt) {
  auto g = tilecraft::test::rng(salt);
  std::vector<AffineInit> f(n);
  for (auto& x : f) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  return f;
}

//! The same maps packed in one 32-bit integer (a in the high, b in the low 16 bits, mod 2^16):
//! an integral accumulator, which block_reduce combines across warps in a tree, so a wrong
//! order or a wrong partial-block prefix shows up for integers too.
struct ComposePacked {
  TILECRAFT_HOST_DEVICE constexpr std::uint32_t operator()(std::uint32_t f, std::uint32_t g) const {
    const std::uint32_t fa = f >> 16, fb = f & 0xffffu, ga = g >> 16, gb = g & 0xffffu;
    return (((ga * fa) & 0xffffu) << 16) | ((ga * fb + gb) & 0xffffu);
  }
};

//! The affine map over uint64 (16 bytes: wider than a scan's packed tile states, so its states
//! keep flags and values apart).
struct Affine64 {
  std::uint64_t a;
  std::uint64_t b;
};
struct Compose64 {
  TILECRAFT_HOST_DEVICE constexpr Affine64 operator()(const Affine64& f, const Affine64& g) const {
    return Affine64{g.a * f.a, g.a * f.b + g.b};
  }
};
inline bool operator==(const Affine64& x, const Affine64& y) { return x.a == y.a && x.b == y.b; }

//! An 8-byte user struct with a commutative, associative op: minimum value, ties to the
//! smaller index.
struct ArgMin {
  float value;
  std::int32_t index;
};
struct ArgMinOp {
  TILECRAFT_HOST_DEVICE constexpr ArgMin operator()(const ArgMin& x, const ArgMin& y) const {
    return (y.value < x.value || (y.value == x.value && y.index < x.index)) ? y : x;
  }
};
inline bool operator==(const ArgMin& x, const ArgMin& y) { return x.value == y.value && x.index == y.index; }

}  // namespace tilecraft::test
