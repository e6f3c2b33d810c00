// Operators and value types shared by the reduction tests.
#pragma once

#include <cstdint>

#include <tilecraft/config.cuh>

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
