// Host-side conversions for the tests of 16-bit operands: a float rounded to the nearest __half or
// __nv_bfloat16, and any of those (or a float) back to float, exactly.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace tilecraft::test {

template <class T>
T to_16bit(float v) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "to_16bit: __half or __nv_bfloat16");
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else {
    return __float2bfloat16_rn(v);
  }
}

inline float to_float(float v) { return v; }
inline float to_float(__half v) { return __half2float(v); }
inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

}  // namespace tilecraft::test
