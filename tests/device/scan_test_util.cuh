// Helpers shared by the device-scan tests: two-phase runs on poisoned outputs and poisoned temp
// storage, and host references.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <tilecraft/device/scan.cuh>

#include "test_util.cuh"

namespace tilecraft::test {

//! Runs tilecraft::inclusive_scan (Exclusive false) or exclusive_scan through the two-phase API
//! into d_out (poisoned first, n elements), on `stream`, with poisoned temp storage.
template <bool Exclusive, class Policy = void, class In, class Out, class Op, class Init = int>
void run_scan(const In* d_in, Out* d_out, std::int64_t n, Op op, Init init = Init{}, cudaStream_t stream = nullptr,
              bool poison_out = true) {
  std::size_t bytes = 0;
  if constexpr (Exclusive) {
    REQUIRE(tilecraft::exclusive_scan<Policy>(nullptr, bytes, d_in, d_out, n, op, init, stream) == cudaSuccess);
  } else {
    REQUIRE(tilecraft::inclusive_scan<Policy>(nullptr, bytes, d_in, d_out, n, op, stream) == cudaSuccess);
  }
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();  // the scan must not rely on zeroed temp storage
  if (poison_out && n > 0) TILECRAFT_THROW_IF_ERROR(cudaMemset(d_out, 0xA5, static_cast<std::size_t>(n) * sizeof(Out)));
  if constexpr (Exclusive) {
    REQUIRE(tilecraft::exclusive_scan<Policy>(temp.get(), bytes, d_in, d_out, n, op, init, stream) == cudaSuccess);
  } else {
    REQUIRE(tilecraft::inclusive_scan<Policy>(temp.get(), bytes, d_in, d_out, n, op, stream) == cudaSuccess);
  }
  TILECRAFT_THROW_IF_ERROR(cudaStreamSynchronize(stream));
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
}

//! The host fold in the accumulator type Acc, converted to Out.
template <bool Exclusive, class Acc, class Out, class In, class Op>
std::vector<Out> host_scan(const std::vector<In>& in, std::size_t first, std::size_t n, Op op, Acc init = Acc{}) {
  std::vector<Out> out(n);
  Acc acc = init;
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (Exclusive) {
      out[i] = static_cast<Out>(acc);
      acc = static_cast<Acc>(op(acc, static_cast<Acc>(in[first + i])));
    } else {
      acc = i == 0 ? static_cast<Acc>(in[first]) : static_cast<Acc>(op(acc, static_cast<Acc>(in[first + i])));
      out[i] = static_cast<Out>(acc);
    }
  }
  return out;
}

template <class T>
std::vector<T> download(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n > 0) TILECRAFT_THROW_IF_ERROR(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

//! Outputs of a float inclusive sum of real[first ... first + n) (got: n values) farther from
//! the double prefix than the rounding bound of the scan's association: its depth, the tile
//! count plus the tile-local levels, taken as i / 1024 + 64 at element i.
inline std::size_t float_sum_errors(const std::vector<float>& got, const std::vector<float>& real, std::size_t first,
                                    std::size_t n) {
  double ref = 0, abs_sum = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ref += real[first + i];
    abs_sum += std::fabs(real[first + i]);
    const double depth = static_cast<double>(i) / 1024.0 + 64;
    bad += std::fabs(got[i] - ref) > sum_tolerance(abs_sum, depth, 0x1p-24);
  }
  return bad;
}

//! Elements of `buf` (poisoned before the run) outside [first, first + n) that lost their
//! poison: writes before or past an output.
template <class T>
std::size_t guards_touched(const DeviceBuffer<T>& buf, std::size_t first, std::size_t n) {
  const auto all = buf.download();
  std::size_t touched = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i < first || i >= first + n) touched += !same_bits(all[i], poison_value<T>());
  }
  return touched;
}

//! Elements where a and b differ bitwise.
template <class T>
std::size_t mismatches(const std::vector<T>& a, const std::vector<T>& b) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) bad += !same_bits(a[i], b[i]);
  return bad + (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

}  // namespace tilecraft::test
