//! \file util/functional.cuh
//! Reduction operators. Transparent (they accept mixed operand types), so an accumulator of
//! one type can absorb inputs of another, as with CUB's `cuda::std::plus<>`.
#pragma once

#include <type_traits>

#include "../config.cuh"

namespace tilecraft {

//! a + b.
struct Sum {
  //! a + b, in the type of a + b.
  template <class A, class B>
  TILECRAFT_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(a + b) {
    return a + b;
  }
};

//! The smaller of a and b; a when neither is smaller (so a NaN in b is dropped, one in a is
//! kept, as Max does). CCCL's `cuda::minimum<>` returns b there instead (a NaN in a dropped, -0
//! and +0 the other way round), so the two may differ in those bits.
struct Min {
  //! b < a ? b : a, in the common type.
  template <class A, class B>
  TILECRAFT_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> std::common_type_t<A, B> {
    return (b < a) ? b : a;
  }
};

//! The larger of a and b; a when neither is larger (the convention of `cuda::maximum<>`).
struct Max {
  //! a < b ? b : a, in the common type.
  template <class A, class B>
  TILECRAFT_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> std::common_type_t<A, B> {
    return (a < b) ? b : a;
  }
};

}  // namespace tilecraft
