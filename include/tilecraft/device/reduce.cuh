//! \file device/reduce.cuh
//! Whole-array reduction built from block_reduce: one kernel launch for any n (nothing else is
//! enqueued), deterministic, with CUB's two-phase temp-storage signature.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../memory/global_word.cuh"
#include "../util/nvtx.cuh"
#include "../util/status.cuh"
#include "workspace.cuh"
#include "detail/reduce_dispatch.cuh"
#include "detail/reduce_kernels.cuh"

namespace tilecraft {

//! The type tilecraft::reduce accumulates in: what `op(init, *in)` returns (CUB's rule), with
//! the 16-bit floating types widened to float.
template <class Op, class Init, class In>
using reduce_accumulator_t = typename detail::ReduceAccumulator<Op, Init, In>::type;

//! How tilecraft::reduce reads a large input (CUB's custom-policy idea): a cooperative grid of
//! BlocksPerSm blocks of Threads threads per multiprocessor, every thread issuing
//! VectorsPerThread independent 16-byte loads per step, with the cache hint Hint (which also
//! applies to the single-block kernels small inputs take). The default, ReducePolicy<>, keeps
//! 128 KiB of loads in flight per multiprocessor (benchmarks/TUNING.md).
//! Rules: Threads a multiple of 32 up to 1024; VectorsPerThread >= 1; BlocksPerSm between 1
//! and 16 and Threads * BlocksPerSm <= 1024 (all blocks must be resident at once, also on sm_75
//! and sm_86, which keep at most 16 blocks and 1024 threads on a multiprocessor).
//! \code
//! using Narrow = tilecraft::ReducePolicy<128, 4, 8>;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::reduce<Narrow>(d_in, d_out, n, tilecraft::Sum{}, 0.0f, stream));
//! \endcode
template <int Threads = 256, int VectorsPerThread = 8, int BlocksPerSm = 4, CacheHint Hint = CacheHint::normal>
struct ReducePolicy {
  static_assert(Threads >= 32 && Threads <= 1024 && Threads % 32 == 0,
                "ReducePolicy: Threads must be a multiple of 32 between 32 and 1024");
  static_assert(VectorsPerThread >= 1, "ReducePolicy: VectorsPerThread must be >= 1");
  static_assert(BlocksPerSm >= 1 && BlocksPerSm <= 16 && Threads * BlocksPerSm <= 1024,
                "ReducePolicy: BlocksPerSm must be between 1 and 16 and Threads * BlocksPerSm <= 1024 (every block "
                "of the cooperative grid must be resident, also on sm_75 and sm_86: 16 blocks, 1024 threads an SM)");
  //! Threads per block of the grid kernel.
  static constexpr int threads = Threads;
  //! Independent 16-byte loads per thread per step.
  static constexpr int vectors_per_thread = VectorsPerThread;
  //! Blocks per multiprocessor in the cooperative grid (and __launch_bounds__' minimum).
  static constexpr int blocks_per_sm = BlocksPerSm;
  //! The cache hint of the input's vector loads.
  static constexpr CacheHint hint = Hint;
};

//! True for every ReducePolicy instantiation.
template <class>
inline constexpr bool is_reduce_policy_v = false;
//! \cond SPECIALIZATIONS
template <int T, int V, int B, CacheHint H>
inline constexpr bool is_reduce_policy_v<ReducePolicy<T, V, B, H>> = true;
//! \endcond

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

//! Reduces the num_items elements at `d_in` with `op` and writes init op in[0] op in[1] op ...
//! to `*d_out` (just `init` when num_items == 0), asynchronously on `stream`. CUB's
//! `DeviceReduce::Reduce` signature: call once with `d_temp_storage == nullptr` to learn
//! `temp_storage_bytes`, allocate, call again.
//!
//! - One kernel launch for any num_items and nothing else enqueued. Inputs up to 256 KiB run
//!   as one block (256 threads up to 16 KiB, 1024 above), and so do inputs of fewer than two of
//!   the grid's tiles (a tile: Policy::threads x vectors_per_thread 16-byte vectors, or as many
//!   elements of a size that does not divide 16): a policy of large tiles keeps inputs of a few
//!   MiB on one block. Larger ones run as a cooperative grid (every block resident) whose blocks
//!   publish partials into the temp storage, meet at a grid-wide barrier, and leave block 0 to
//!   combine them. The temp storage needs no initialization. Where the GPU refuses the
//!   cooperative launch (fewer SMs than it reports, under MPS or green contexts; no cooperative
//!   launches), the same grid runs without its barrier and a second kernel of one block folds
//!   the partials: the same result, bit for bit.
//! - Deterministic: the same input at the same address on the same GPU gives bitwise the same
//!   result, whatever the block scheduling (partials are combined in block order).
//! - `op` must be associative and commutative (elements are dealt to threads in strides, as in
//!   CUB). Accumulates in Acc = reduce_accumulator_t<Op, Init, In> (what op(init, x) returns;
//!   16-bit floats accumulate in float); each input is converted to Acc before op combines it.
//! - Loads are 16 bytes wide when `d_in` allows; any element offset works. num_items up to
//!   (2^63 - 1) / sizeof(In) (the input's bytes a 64-bit count).
//!
//! Returns cudaErrorInvalidValue, launching nothing, when num_items < 0 or above that limit,
//! d_out is null, d_in is null while num_items > 0, a pointer is not aligned to its type, or
//! the given temp storage is too small, shares bytes with the input, or is not aligned to 16
//! bytes (or to the accumulator's alignment, where larger); the size query (d_temp_storage
//! null) checks num_items alone and reads no pointer, as CUB's does. Otherwise the first
//! failing CUDA call's status (device queries, the kernel's attributes, the launch) or cudaSuccess. Compiled
//! by a host compiler (a .cpp file) it checks the arguments and answers the size query only, and
//! returns cudaErrorInvalidDeviceFunction where it would launch. `Policy` (default
//! ReducePolicy<>) is a ReducePolicy.
//! \code
//! std::size_t bytes = 0;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::reduce(nullptr, bytes, d_in, d_out, n, tilecraft::Sum{}, 0.0f));
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_temp, bytes));
//! TILECRAFT_THROW_IF_ERROR(tilecraft::reduce(d_temp, bytes, d_in, d_out, n, tilecraft::Sum{}, 0.0f, stream));
//! \endcode
template <class Policy = void, class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, Out* d_out,
                                 std::int64_t num_items, Op op, Init init, cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::reduce");
  static_assert(std::is_void_v<Policy> || is_reduce_policy_v<Policy>,
                "tilecraft::reduce<Policy>: Policy must be a tilecraft::ReducePolicy");
  if constexpr (std::is_void_v<Policy> || is_reduce_policy_v<Policy>) {
    using P = std::conditional_t<std::is_void_v<Policy>, ReducePolicy<>, Policy>;
    return detail::reduce_with<P>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op, init, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

//! Convenience form: allocates the temp storage itself from the stream-ordered pool
//! (cudaMallocAsync / cudaFreeAsync on `stream`). The count and null pointers are refused before
//! the allocation; the other argument checks come with the call after it (a refused call
//! launches nothing, but has queued the allocation and its free).
template <class Policy = void, class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t reduce(const In* d_in, Out* d_out, std::int64_t num_items, Op op, Init init,
                                 cudaStream_t stream = nullptr) {
  if (num_items < 0 || d_out == nullptr || (num_items > 0 && d_in == nullptr)) return cudaErrorInvalidValue;
  std::size_t bytes = 0;
  // (The query's status as it is: its argument errors are not the runtime's last error.)
  if (const cudaError_t query = reduce<Policy>(nullptr, bytes, d_in, d_out, num_items, op, init, stream);
      query != cudaSuccess) {
    return query;
  }
  void* temp = nullptr;
  TILECRAFT_RETURN_IF_ERROR(detail::stream_alloc(&temp, bytes, stream));
  const cudaError_t status = reduce<Policy>(temp, bytes, d_in, d_out, num_items, op, init, stream);
  const cudaError_t freed = detail::stream_free(temp, stream);
  return status != cudaSuccess ? status : freed;
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft
