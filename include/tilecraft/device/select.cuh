//! \file device/select.cuh
//! Stream compaction on top of the single-pass scan: select_if keeps the items a predicate
//! accepts, in order; partition puts them first, in order, and the others after them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../util/nvtx.cuh"
#include "../util/status.cuh"
#include "detail/select_dispatch.cuh"
#include "scan_policy.cuh"

namespace tilecraft {

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

//! Copies the items of d_in[0, num_items) for which `pred(item)` is true to d_out, in their
//! order, and writes how many there are to `*d_num_selected` (device memory), asynchronously on
//! `stream`. CUB's `DeviceSelect::If` signature: call once with `d_temp_storage == nullptr` to
//! learn `temp_storage_bytes`, allocate, call again.
//!
//! - Single pass, like inclusive_scan: each block takes a tile from an atomic counter, flags its
//!   items, ranks them within each warp (warp scans of per-row counts packed several to a word), adds the warps'
//!   counts and finds the kept items before the tile by the decoupled look-back, compacts its
//!   kept items in shared memory and writes them out coalesced. The Policy's block_algorithm
//!   is not used (no block_scan runs); its threads and items set the tile.
//!   Every item is read once and every kept item written once; `pred` is called once per item.
//! - d_out has room for num_items items (as many as may be kept). It may be d_in itself (in
//!   place, as CUB's `DeviceSelect::If` on one array: the kept items move to the front in
//!   order, and the items from the kept count on are left as they were; not with a Policy of
//!   CacheHint::streaming, whose loads take the read-only path); otherwise it must not overlap
//!   d_in. In place costs no more than a select into another array (2^28 floats, half kept, on
//!   an H200: 522.9 against 521.4 us; no fences: benchmarks/TUNING.md, "select_if in place").
//!   The kept count is exact up to num_items = (2^63 - 1) / 64 and 2^31 - 1 tiles of the policy's
//!   tile_items (32-bit tile counts below 2^32 items, 64-bit above); `NumSelected` is any
//!   writable (not const, not volatile) integer type of at least 4 bytes.
//! - Items: trivially copyable and default constructible (tiles stage them in shared memory as
//!   raw bytes), d_in and d_out of one item type; the default tiles take items of up to 640
//!   bytes. `pred(item)` must be callable on a `const In&` in device code and return something
//!   convertible to bool. Each rule is a static_assert that states it.
//!
//! Returns cudaErrorInvalidValue, launching nothing, when num_items is negative, too large, or
//! more than NumSelected holds (every item may be kept: an int count takes up to 2^31 - 1
//! items), d_num_selected is null, d_in or d_out is null while num_items > 0, a pointer is not
//! aligned to its type, the arrays (other than as one array, in place, without streaming
//! loads), the count and the temp storage share bytes, or the temp storage is too small or not
//! 16-byte aligned; the size query (d_temp_storage null) checks num_items alone and reads no
//! pointer, as CUB's does. num_items == 0 writes 0 to *d_num_selected. Otherwise the first failing
//! CUDA call's status (device queries, the kernel's attributes, the launch) or cudaSuccess.
//! Compiled by a host compiler (a .cpp file) it checks the arguments and answers the size query
//! (the same bytes as nvcc's form), and returns cudaErrorInvalidDeviceFunction where it would
//! launch or write the count.
//! \code
//! std::size_t bytes = 0;
//! std::int64_t* d_count = nullptr;   // device memory for the kept count
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_count, sizeof(std::int64_t)));
//! auto positive = [] __device__(float v) { return v > 0.0f; };
//! TILECRAFT_THROW_IF_ERROR(tilecraft::select_if(nullptr, bytes, d_in, d_out, d_count, n, positive));
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_temp, bytes));
//! TILECRAFT_THROW_IF_ERROR(tilecraft::select_if(d_temp, bytes, d_in, d_out, d_count, n, positive, stream));
//! \endcode
template <class Policy = void, class In, class NumSelected, class Pred>
[[nodiscard]] cudaError_t select_if(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, In* d_out,
                                    NumSelected* d_num_selected, std::int64_t num_items, Pred pred,
                                    cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::select_if");
  static_assert(std::is_void_v<Policy> || is_scan_policy_v<Policy>,
                "tilecraft::select_if<Policy>: Policy must be a tilecraft::ScanPolicy");
  if constexpr (detail::scan_policy_usable_v<Policy>) {
    return detail::select_with<Policy, false>(d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected,
                                              num_items, pred, stream);
  } else {
    (void)sizeof(Policy);  // (a ScanPolicy breaking a rule: its static_assert says which)
    return cudaErrorInvalidValue;
  }
}

//! Partitions d_in[0, num_items) into d_out: the items for which `pred(item)` is true first, in
//! their order, then the others in reverse order (d_out[num_items - 1] is the first rejected
//! item: a single pass cannot know where the kept ones end; CUB's `DevicePartition::If` order).
//! Writes the kept count to `*d_num_selected`. Everything else as select_if; d_out holds
//! num_items items and, where num_items > 0, must not overlap d_in, not even as the same array
//! (the rejected items, written from the end, would overwrite items not yet read).
//! \code
//! std::size_t bytes = 0;
//! std::int64_t* d_count = nullptr;
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_count, sizeof(std::int64_t)));
//! auto small = [] __device__(float v) { return v < 1.0f; };
//! TILECRAFT_THROW_IF_ERROR(tilecraft::partition(nullptr, bytes, d_in, d_out, d_count, n, small));
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_temp, bytes));
//! TILECRAFT_THROW_IF_ERROR(tilecraft::partition(d_temp, bytes, d_in, d_out, d_count, n, small, stream));
//! \endcode
template <class Policy = void, class In, class NumSelected, class Pred>
[[nodiscard]] cudaError_t partition(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, In* d_out,
                                    NumSelected* d_num_selected, std::int64_t num_items, Pred pred,
                                    cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::partition");
  static_assert(std::is_void_v<Policy> || is_scan_policy_v<Policy>,
                "tilecraft::partition<Policy>: Policy must be a tilecraft::ScanPolicy");
  if constexpr (detail::scan_policy_usable_v<Policy>) {
    return detail::select_with<Policy, true>(d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected, num_items,
                                             pred, stream);
  } else {
    (void)sizeof(Policy);  // (a ScanPolicy breaking a rule: its static_assert says which)
    return cudaErrorInvalidValue;
  }
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft
