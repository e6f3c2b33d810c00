//! \file device/detail/select_dispatch.cuh
//! tilecraft::select_if / partition's dispatch: type rules, argument checks, temp storage,
//! launches (internal; include device/select.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/error.cuh"
#include "../../util/math.cuh"
#include "../scan_policy.cuh"
#include "scan_dispatch.cuh"
#include "scan_tile_state.cuh"
#include "select_kernels.cuh"

namespace tilecraft::detail {

template <class In>
using DefaultSelectPolicyLarge = DefaultScanPolicyLarge<In, In>;
template <class In>
using DefaultSelectPolicySmall = DefaultScanPolicySmall<In, In>;

#if defined(__CUDACC__)
// Offset: the kept counts' type (32-bit below 2^32 items: one 8-byte word per tile state).
template <class Policy, bool Partition, class Offset, class In, class Pred, class NumSelected>
[[nodiscard]] cudaError_t select_run(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, In* d_out,
                                     NumSelected* d_num_selected, std::int64_t num_items, Pred pred,
                                     cudaStream_t stream) {
  const std::int64_t tiles = ceil_div<std::int64_t>(num_items, Policy::tile_items);
  if (tiles > INT_MAX) return cudaErrorInvalidValue;
  const std::size_t needed = scan_header_bytes + tile_status_bytes<Offset>(tiles > 1 ? tiles : 1);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (temp_storage_bytes < needed || reinterpret_cast<std::uintptr_t>(d_temp_storage) % 16 != 0) {
    return cudaErrorInvalidValue;
  }
  if (d_num_selected == nullptr) return cudaErrorInvalidValue;
  if (num_items > 0 && (d_in == nullptr || d_out == nullptr)) return cudaErrorInvalidValue;
  const std::size_t bytes = static_cast<std::size_t>(num_items) * sizeof(In);
  if (num_items > 0 && partially_overlapping(d_in, bytes, d_out, bytes, false)) return cudaErrorInvalidValue;
  if (num_items == 0) return cudaMemsetAsync(d_num_selected, 0, sizeof(NumSelected), stream);
  auto* counter = static_cast<unsigned*>(d_temp_storage);
  const TileStatus<Offset> status(static_cast<unsigned char*>(d_temp_storage) + scan_header_bytes,
                                  tiles > 1 ? tiles : 1);
  if (tiles > 1) {
    scan_init_kernel<<<static_cast<unsigned>(ceil_div<std::int64_t>(tiles, 256)), 256, 0, stream>>>(status, tiles,
                                                                                                    counter);
    TILECRAFT_RETURN_IF_ERROR(last_launch_error());
  }
  const bool vector = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0;
  select_kernel<Policy, Partition, In, Offset, Pred, NumSelected>
      <<<static_cast<unsigned>(tiles), Policy::threads, 0, stream>>>(d_in, d_out, num_items, pred, d_num_selected,
                                                                     status, counter, vector, tiles == 1);
  return last_launch_error();
}
#endif

template <class Policy, bool Partition, class In, class Pred, class NumSelected>
[[nodiscard]] cudaError_t select_with(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, In* d_out,
                                      NumSelected* d_num_selected, std::int64_t num_items, Pred pred,
                                      cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<In> && std::is_default_constructible_v<In>,
                "tilecraft::select_if / partition: the item type must be trivially copyable and default constructible");
  static_assert(std::predicate<Pred&, const In&>,
                "tilecraft::select_if / partition: pred(*d_in) must be callable and return something convertible to "
                "bool");
  static_assert(std::is_integral_v<NumSelected> && sizeof(NumSelected) >= 4,
                "tilecraft::select_if / partition: the kept count is written to an integer of at least 4 bytes");
  if constexpr (std::is_trivially_copyable_v<In> && std::is_default_constructible_v<In> &&
                std::predicate<Pred&, const In&> && std::is_integral_v<NumSelected> && sizeof(NumSelected) >= 4) {
    if (num_items < 0 || num_items > INT64_MAX / 64) return cudaErrorInvalidValue;
#if defined(__CUDACC__)
    auto run = [&]<class P>() -> cudaError_t {
      if (num_items <= static_cast<std::int64_t>(UINT_MAX)) {
        return select_run<P, Partition, unsigned>(d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected,
                                                  num_items, pred, stream);
      }
      return select_run<P, Partition, unsigned long long>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                                          d_num_selected, num_items, pred, stream);
    };
    if constexpr (!std::is_void_v<Policy>) {
      return run.template operator()<Policy>();
    } else {
      if (num_items * static_cast<std::int64_t>(sizeof(In)) <= small_scan_max_bytes) {
        return run.template operator()<DefaultSelectPolicySmall<In>>();
      }
      return run.template operator()<DefaultSelectPolicyLarge<In>>();
    }
#else
    (void)d_temp_storage, (void)temp_storage_bytes, (void)d_in, (void)d_out, (void)d_num_selected, (void)pred,
        (void)stream;
    return cudaErrorInvalidDeviceFunction;
#endif
  } else {
    return cudaErrorInvalidValue;
  }
}

}  // namespace tilecraft::detail
