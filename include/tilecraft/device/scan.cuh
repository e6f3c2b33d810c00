//! \file device/scan.cuh
//! Whole-array prefix scans built from block_scan: single pass (every element is read once and
//! written once) with decoupled look-back; where every tile fits one wave of resident blocks, one
//! pass whose tiles meet at a grid barrier instead; two passes (tile sums, then each tile from
//! L2) at mid sizes where that does not fit or runs; deterministic, with CUB's two-phase
//! temp-storage signature.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../util/nvtx.cuh"
#include "../util/status.cuh"
#include "workspace.cuh"
#include "detail/scan_dispatch.cuh"
#include "detail/scan_kernels.cuh"
#include "scan_policy.cuh"

namespace tilecraft {

//! The type tilecraft::inclusive_scan accumulates in: what `op(*d_out, *d_in)` returns (the
//! output type combined with an input: a u8 input scanned into an i64 output accumulates in
//! i64; i8 into i8 with Sum in int, C++'s promotion).
template <class Op, class In, class Out>
using inclusive_scan_accumulator_t = typename detail::ScanAccumulator<Op, Out, In>::type;

//! The type tilecraft::exclusive_scan accumulates in: what `op(init, *d_in)` returns (CUB's
//! rule: pass a 64-bit init to sum 32-bit inputs in 64 bits).
template <class Op, class In, class Init>
using exclusive_scan_accumulator_t = typename detail::ScanAccumulator<Op, Init, In>::type;

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

//! Inclusive prefix scan: d_out[i] = in[0] op in[1] op ... op in[i] for i < num_items,
//! asynchronously on `stream`. CUB's `DeviceScan::InclusiveScan` signature: call once with
//! `d_temp_storage == nullptr` to learn `temp_storage_bytes` (it depends only on num_items and
//! the types), allocate, call again.
//!
//! - Single pass, two launches (a tile-state reset, 256 threads per 256 tiles, then the scan;
//!   inputs of one tile: one launch of one block). Each block takes its tile from an atomic
//!   counter (so it only ever waits for tiles whose blocks already run: no assumption about the
//!   order the hardware starts blocks in); where there are no more tiles than the GPU has SMs,
//!   the tile is the block's index, loaded while the reset still runs (on sm_90, where the scan
//!   is the reset's programmatic dependent; 2^16 and 2^20 floats 3-5% faster). Those blocks wait
//!   only for lower-indexed ones, and all of them fit on the GPU at once (other work that holds
//!   SMs frees them as it ends); where a process may use fewer SMs than the GPU has (an MPS or
//!   green-context limit), this relies on the hardware starting a grid's blocks in index order,
//!   as CUB's look-back does. It stages its tile through shared memory with 16-byte
//!   vector loads, scans it with block_scan (in two passes over shared memory where input and output have one size
//!   and a thread's accumulators would take more than 128 bytes of registers: the large default tiles of 4- to
//!   16-byte items, and 1- and 2-byte sums, whose accumulators are int), and learns the prefix of everything before it
//!   by decoupled look-back: its first warp walks back over its predecessors' published states, 32 a window, to the
//!   nearest inclusive prefix (up to 512 tiles back for accumulators of up to 4 bytes, 256 for 8-byte ones; farther,
//!   it waits there for one), then folds their aggregates forward in tile order. Accumulators wider than 8 bytes wait
//!   on the 32 nearest predecessors until one of them holds an inclusive prefix. Integer Sum, Min and Max, whose
//!   results have the same bits in any association, walk back without that limit and combine each window of 32 states
//!   with a warp reduction instead of the fold in order (faster there: i64 exclusive sums 14% at 2^27). Past 8 tiles
//!   an SM each block first asks L2 for the tile a block one SM's worth of tickets later will take, so that DRAM keeps
//!   reading while tiles wait for their prefixes.
//! - Mid sizes in two passes: with the default tiles, where input and output have one size of 4
//!   or 8 bytes, the accumulator at most 8 bytes, and input and output together take from 1 MiB
//!   to half the GPU's L2, pass 1 writes the fold of each 16 KiB tile (256 threads) but the last into the temp storage,
//!   and pass 2 (on sm_90 its programmatic dependent: its blocks load their tiles while pass 1
//!   runs) folds the sums before its tile in order and scans the tile, which pass 1 left in L2,
//!   with that prefix in front: the single pass is latency-bound there (on the H200 5-10% faster
//!   from 2^17 to 2^21 floats or ints, f32 2^20 1.04-1.10 -> 1.11-1.18x CUB; benchmarks/TUNING.md).
//!   Since the one wave below takes these sizes on the H200, the two passes run where its tiles
//!   do not fit one wave (GPUs of fewer SMs) or the GPU refuses the cooperative launch. A
//!   caller's Policy always runs the single pass.
//! - One wave: for the same types, where every tile fits one wave of the GPU's resident blocks
//!   (two tiles or more), one cooperative launch: each block loads its tile, writes the tile's
//!   fold into the temp storage, meets every other block at a grid barrier, folds the sums before
//!   its tile in a fixed order and scans and stores the tile (each element read once and written
//!   once, and no chain of look-backs). The tile in registers, 256 threads x 32 bytes where input
//!   and output together take at most 4 MiB, x 128 bytes above (on the H200 up to 2^21.6 floats
//!   or ints, 2^20.6 8-byte items); past that, from 8 MiB of input and output, 256 threads x 128
//!   bytes held in shared memory (twice the tiles an SM: up to 2^22.6 floats, 2^21.4 8-byte
//!   items; 128 bytes in registers only where a thread's accumulators take at most 128 bytes);
//!   past that each tile split, 256 bytes a thread in shared memory and 128 in registers (three
//!   tiles an SM: up to 2^23.2 floats; where a thread's accumulators take at most 128 bytes, and
//!   the GPU opts a block in to 64 KiB of shared memory and holds three such tiles an SM). On
//!   the H200, standalone, 1.20-1.38x CUB from 2^12 to 2^21 floats or ints, 1.16-1.20x at 2^21.6
//!   to 2^22.6, 1.08x at 2^23 and 2^23.2 (0.92-1.22x in the forms it replaced; 0.92x at 2^23). A
//!   GPU that refuses the cooperative launch
//!   (fewer SMs than it reports, under MPS or green contexts) runs the other forms. The temp
//!   storage holds the single pass's tile states or the finest of these tiles' sums, whichever
//!   is larger.
//! - Deterministic: the same input on the same GPU gives the same bits on every run (floating
//!   point included), however the blocks are scheduled. Tile i's inclusive prefix is defined as
//!   the sequential fold P_i = P_{i-1} op a_i of the tile aggregates a_i; a tile whose look-back
//!   meets the inclusive prefix P_j of its nearest such predecessor folds a_{j+1}, ..., a_{i-1}
//!   onto it in order, which reproduces P_{i-1}'s association whichever j it met. Within a tile
//!   the association is fixed by the tile shape; in two passes and in one wave, by the tile
//!   shape and each block's runs of sums (a function of the tile's index alone), aligned input or
//!   not. Which form runs depends on the size, the types and the GPU, never on timing. (Results are rounded
//!   differently from a sequential host loop, as CUB's are.)
//! - `op` must be associative; it need not be commutative (elements are only combined with
//!   their neighbours, in order). Accumulates in inclusive_scan_accumulator_t (what op(*d_out,
//!   *d_in) returns); inputs are converted to it, results converted to Out. In and Out must be
//!   trivially copyable (tiles move them as raw bytes) and default constructible, Out writable
//!   (not const, not volatile), the accumulator trivially copyable and default constructible
//!   (default member initializers are fine: shared memory holds it as raw bytes, as CUB's
//!   storage does); the default tiles take types of up to 480 bytes. Each rule is a
//!   static_assert that states it.
//! - In place when `d_out` and `d_in` are the same address and the types have one width; other
//!   overlaps are refused. Any element offset (16-byte vectors when both are 16-byte aligned).
//!   num_items up to (2^63 - 1) / 64 (/ the widest type's size above 64 bytes) and up to
//!   2^31 - 1 tiles of the policy's tile_items (more than 2^31 elements: offsets are 64-bit; the
//!   default policies' tiles of 2048 or more elements reach 2^42).
//!
//! Returns cudaErrorInvalidValue, launching nothing, when num_items is negative or too large,
//! a pointer is null or not aligned to its type while num_items > 0, the ranges partially
//! overlap, or the given temp storage is too small, not 16-byte aligned or shares bytes with
//! the arrays; the size query (d_temp_storage null) checks num_items alone and reads no
//! pointer, as CUB's does. Otherwise the first failing CUDA call's status (device queries, the kernel's
//! attributes, the launch) or cudaSuccess. Compiled by a host compiler (a .cpp file) it checks
//! the arguments and answers the size query (the same bytes as nvcc's form), and returns
//! cudaErrorInvalidDeviceFunction where it would launch. `Policy` (default: by type and size) is
//! a ScanPolicy.
//! \code
//! std::size_t bytes = 0;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::inclusive_scan(nullptr, bytes, d_in, d_out, n, tilecraft::Sum{}));
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_temp, bytes));
//! TILECRAFT_THROW_IF_ERROR(tilecraft::inclusive_scan(d_temp, bytes, d_in, d_out, n, tilecraft::Sum{}, stream));
//! \endcode
template <class Policy = void, class In, class Out, class Op>
[[nodiscard]] cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                                         Out* d_out, std::int64_t num_items, Op op, cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::inclusive_scan");
  static_assert(std::is_void_v<Policy> || is_scan_policy_v<Policy>,
                "tilecraft::inclusive_scan<Policy>: Policy must be a tilecraft::ScanPolicy");
  if constexpr (detail::scan_policy_usable_v<Policy>) {
    return detail::scan_with<Policy, false, Out>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op, 0,
                                                 stream);
  } else {
    (void)sizeof(Policy);  // (a ScanPolicy breaking a rule: its static_assert says which)
    return cudaErrorInvalidValue;
  }
}

//! Exclusive prefix scan seeded with `init`: d_out[0] = init, d_out[i] = init op in[0] op ...
//! op in[i-1]. Everything else as inclusive_scan (accumulates in exclusive_scan_accumulator_t,
//! what op(init, *d_in) returns, which init must convert to; P_{-1} = init in the determinism rule).
//! \code
//! std::size_t bytes = 0;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::exclusive_scan(nullptr, bytes, d_in, d_out, n, tilecraft::Sum{}, 0.0f));
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_temp, bytes));
//! TILECRAFT_THROW_IF_ERROR(tilecraft::exclusive_scan(d_temp, bytes, d_in, d_out, n, tilecraft::Sum{}, 0.0f, stream));
//! \endcode
template <class Policy = void, class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                                         Out* d_out, std::int64_t num_items, Op op, Init init,
                                         cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::exclusive_scan");
  static_assert(std::is_void_v<Policy> || is_scan_policy_v<Policy>,
                "tilecraft::exclusive_scan<Policy>: Policy must be a tilecraft::ScanPolicy");
  if constexpr (detail::scan_policy_usable_v<Policy>) {
    return detail::scan_with<Policy, true, Init>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op, init,
                                                 stream);
  } else {
    (void)sizeof(Policy);  // (a ScanPolicy breaking a rule: its static_assert says which)
    return cudaErrorInvalidValue;
  }
}

//! Convenience form of inclusive_scan: allocates the temp storage itself from the
//! stream-ordered pool (cudaMallocAsync / cudaFreeAsync on `stream`). The count and null
//! pointers are refused before the allocation; the other argument checks (alignment, overlaps)
//! come with the call after it (a refused call launches nothing, but has queued the allocation
//! and its free).
template <class Policy = void, class In, class Out, class Op>
[[nodiscard]] cudaError_t inclusive_scan(const In* d_in, Out* d_out, std::int64_t num_items, Op op,
                                         cudaStream_t stream = nullptr) {
  if (num_items > 0 && (d_in == nullptr || d_out == nullptr)) return cudaErrorInvalidValue;
  std::size_t bytes = 0;
  // (The query's status as it is: its argument errors are not the runtime's last error.)
  if (const cudaError_t query = inclusive_scan<Policy>(nullptr, bytes, d_in, d_out, num_items, op, stream);
      query != cudaSuccess) {
    return query;
  }
  void* temp = nullptr;
  TILECRAFT_RETURN_IF_ERROR(detail::stream_alloc(&temp, bytes, stream));
  const cudaError_t status = inclusive_scan<Policy>(temp, bytes, d_in, d_out, num_items, op, stream);
  const cudaError_t freed = detail::stream_free(temp, stream);
  return status != cudaSuccess ? status : freed;
}

//! Convenience form of exclusive_scan: allocates the temp storage itself from the
//! stream-ordered pool (cudaMallocAsync / cudaFreeAsync on `stream`). The count and null
//! pointers are refused before the allocation; the other argument checks (alignment, overlaps)
//! come with the call after it (a refused call launches nothing, but has queued the allocation
//! and its free).
template <class Policy = void, class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t exclusive_scan(const In* d_in, Out* d_out, std::int64_t num_items, Op op, Init init,
                                         cudaStream_t stream = nullptr) {
  if (num_items > 0 && (d_in == nullptr || d_out == nullptr)) return cudaErrorInvalidValue;
  std::size_t bytes = 0;
  // (The query's status as it is: its argument errors are not the runtime's last error.)
  if (const cudaError_t query = exclusive_scan<Policy>(nullptr, bytes, d_in, d_out, num_items, op, init, stream);
      query != cudaSuccess) {
    return query;
  }
  void* temp = nullptr;
  TILECRAFT_RETURN_IF_ERROR(detail::stream_alloc(&temp, bytes, stream));
  const cudaError_t status = exclusive_scan<Policy>(temp, bytes, d_in, d_out, num_items, op, init, stream);
  const cudaError_t freed = detail::stream_free(temp, stream);
  return status != cudaSuccess ? status : freed;
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft
