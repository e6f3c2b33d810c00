//! \file device/reduce.cuh
//! Whole-array reduction built from block_reduce: one kernel launch for any n, deterministic,
//! with CUB's two-phase temp-storage signature.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../block/block_reduce.cuh"
#include "../config.cuh"
#include "../memory/tile_copy.cuh"
#include "../util/error.cuh"
#include "../util/math.cuh"
#include "../util/thread.cuh"

namespace tilecraft {

namespace detail {
template <class Op, class Init, class In>
struct ReduceAccumulator {
  using type = void;
};
template <class Op, class Init, class In>
requires std::invocable<Op&, const Init&, const In&>
struct ReduceAccumulator<Op, Init, In> {
  using type = block_accumulator_t<std::decay_t<std::invoke_result_t<Op&, const Init&, const In&>>>;
};
}  // namespace detail

//! The type tilecraft::reduce accumulates in: what `op(init, *in)` returns (CUB's rule), with
//! the 16-bit floating types widened to float.
template <class Op, class Init, class In>
using reduce_accumulator_t = typename detail::ReduceAccumulator<Op, Init, In>::type;

namespace detail {

//! Launch shape of tilecraft::reduce. A tile is what one block reads per step: every thread
//! issues `vectors_per_thread` independent 16-byte loads before combining any of them.
struct ReducePolicy {
  static constexpr int threads = 256;
  static constexpr int vectors_per_thread = 4;
  static constexpr int blocks_per_sm = 4;
  //! Inputs up to this many bytes are reduced by one block: no second block, no counter, no
  //! temp storage. Above it the array is spread over the whole GPU.
  static constexpr std::int64_t single_block_bytes = 64 * 1024;
};

//! Elements per 16-byte load, or 1 when In cannot be loaded as aligned 16-byte vectors.
template <class In>
inline constexpr int reduce_vector_elems = (16 % sizeof(In) == 0 && sizeof(In) <= 16) ? 16 / sizeof(In) : 1;

//! Loads Vec consecutive elements as one machine word (Vec == 1: a plain element load).
template <class In, int Vec>
struct ReduceLoad {
  using Word = std::conditional_t<Vec == 1, In, typename VectorWord<static_cast<int>(Vec * sizeof(In))>::type>;
};

template <class Policy, int Vec>
inline constexpr std::int64_t reduce_tile_elems =
    static_cast<std::int64_t>(Policy::threads) * Policy::vectors_per_thread* Vec;

//! Where the partials and the arrival counter live inside the caller's temp storage.
template <class Acc>
struct ReduceTemp {
  static constexpr std::size_t counter_bytes = 256;  // keeps the partials 256-byte aligned
  static std::size_t bytes(int grid) {
    return grid <= 1 ? 16 : counter_bytes + sizeof(Acc) * static_cast<std::size_t>(grid);
  }
};

#if defined(__CUDACC__)

// Reads a value another block published: from L2 (.cg), never from a possibly stale L1 line.
template <class T>
TILECRAFT_DEVICE T load_from_l2(const T* p) {
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned w[sizeof(T) / 4];
    const unsigned* src = reinterpret_cast<const unsigned*>(p);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 4; ++i) w[i] = __ldcg(src + i);
    T out;
    std::memcpy(&out, w, sizeof(T));
    return out;
  } else {
    unsigned char b[sizeof(T)];
    const volatile unsigned char* src = reinterpret_cast<const volatile unsigned char*>(p);
    for (unsigned i = 0; i < sizeof(T); ++i) b[i] = src[i];
    T out;
    std::memcpy(&out, b, sizeof(T));
    return out;
  }
}

// Folds one thread's share of `in` into `acc`. The split depends only on n, the grid size and
// the input's alignment, so the same call always combines the same values in the same order.
//   body: 16-byte-aligned vectors; full tiles of threads * vectors_per_thread vectors are
//         dealt to blocks round-robin (every thread of every block owns a vector of its first
//         tile, so `acc` starts from real data and no identity element is needed);
//   rest: the vectors after the last full tile, then the unaligned head and the tail, dealt to
//         threads across the grid one element or vector each.
template <class Policy, int Vec, class In, class Acc, class Op>
TILECRAFT_DEVICE Acc thread_reduce_spread(const In* in, std::int64_t n, Op op) {
  constexpr int vec = Vec;
  using Word = typename ReduceLoad<In, Vec>::Word;
  constexpr std::int64_t tile_vectors = static_cast<std::int64_t>(Policy::threads) * Policy::vectors_per_thread;

  // Elements before the first 16-byte boundary (the launcher picked Vec > 1 only when the
  // elements are naturally aligned, so this is a whole number of them).
  const auto addr = reinterpret_cast<std::uintptr_t>(in);
  const std::int64_t head = Vec == 1 ? 0 : static_cast<std::int64_t>((16 - addr % 16) % 16 / sizeof(In));
  const Word* body = reinterpret_cast<const Word*>(in + head);
  const std::int64_t body_vectors = (n - head) / vec;
  const std::int64_t full_tiles = body_vectors / tile_vectors;
  const int tid = threadIdx.x;

  auto load = [&](std::int64_t v, In(&x)[vec]) {
    const Word w = body[v];
    std::memcpy(x, &w, sizeof(w));
  };

  Acc acc;
  {
    // First full tile: initializes acc.
    const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tile_vectors + tid;
    In x[Policy::vectors_per_thread][vec];
#pragma unroll
    for (int k = 0; k < Policy::vectors_per_thread; ++k) load(base + k * Policy::threads, x[k]);
    acc = static_cast<Acc>(x[0][0]);
#pragma unroll
    for (int j = 1; j < vec; ++j) acc = static_cast<Acc>(op(acc, static_cast<Acc>(x[0][j])));
#pragma unroll
    for (int k = 1; k < Policy::vectors_per_thread; ++k) {
#pragma unroll
      for (int j = 0; j < vec; ++j) acc = static_cast<Acc>(op(acc, static_cast<Acc>(x[k][j])));
    }
  }
  for (std::int64_t t = blockIdx.x + gridDim.x; t < full_tiles; t += gridDim.x) {
    const std::int64_t base = t * tile_vectors + tid;
    In x[Policy::vectors_per_thread][vec];
#pragma unroll
    for (int k = 0; k < Policy::vectors_per_thread; ++k) load(base + k * Policy::threads, x[k]);
#pragma unroll
    for (int k = 0; k < Policy::vectors_per_thread; ++k) {
#pragma unroll
      for (int j = 0; j < vec; ++j) acc = static_cast<Acc>(op(acc, static_cast<Acc>(x[k][j])));
    }
  }
  // Leftovers, spread over every thread of the grid.
  const std::int64_t gtid = static_cast<std::int64_t>(blockIdx.x) * Policy::threads + tid;
  const std::int64_t gthreads = static_cast<std::int64_t>(gridDim.x) * Policy::threads;
  for (std::int64_t v = full_tiles * tile_vectors + gtid; v < body_vectors; v += gthreads) {
    In x[vec];
    load(v, x);
#pragma unroll
    for (int j = 0; j < vec; ++j) acc = static_cast<Acc>(op(acc, static_cast<Acc>(x[j])));
  }
  if (gtid < head) acc = static_cast<Acc>(op(acc, static_cast<Acc>(in[gtid])));
  const std::int64_t tail_begin = head + body_vectors * vec;
  for (std::int64_t i = tail_begin + gtid; i < n; i += gthreads)
    acc = static_cast<Acc>(op(acc, static_cast<Acc>(in[i])));
  return acc;
}

template <class Policy, int Vec, class In, class Out, class Acc, class Op, class Init>
__global__ void __launch_bounds__(Policy::threads)
    reduce_kernel(const In* in, std::int64_t n, Out* out, Op op, Init init, Acc* partials, unsigned* arrivals) {
  __shared__ BlockReduceStorage<Acc, Policy::threads> temp;
  __shared__ bool last_block;
  const int tid = threadIdx.x;

  Acc block_total{};
  if (n >= reduce_tile_elems<Policy, Vec> + 16) {
    // At least one full, aligned tile per block (the launcher sizes the grid so).
    block_total = block_reduce(temp, thread_reduce_spread<Policy, Vec, In, Acc>(in, n, op), op);
  } else if (n > 0) {
    // Small input, one block: thread t folds elements t, t + threads, ...; threads t < n hold
    // a value, a prefix of the block, which is what valid_items means.
    Acc acc = static_cast<Acc>(in[tid < n ? tid : 0]);
    for (std::int64_t i = tid + Policy::threads; i < n; i += Policy::threads)
      acc = static_cast<Acc>(op(acc, static_cast<Acc>(in[i])));
    const int valid = n < Policy::threads ? static_cast<int>(n) : Policy::threads;
    block_total = block_reduce(temp, acc, op, valid);
  }

  if (gridDim.x == 1) {
    if (tid == 0)
      *out =
          static_cast<Out>(n > 0 ? static_cast<Acc>(op(static_cast<Acc>(init), block_total)) : static_cast<Acc>(init));
    return;
  }

  // Publish this block's partial; the block that arrives last reduces all partials in block
  // order, so the result does not depend on which block finished when.
  if (tid == 0) {
    partials[blockIdx.x] = block_total;
    __threadfence();
    last_block = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();  // also ends the first block_reduce's use of temp
  if (!last_block) return;
  __threadfence();
  const int blocks = static_cast<int>(gridDim.x);
  Acc acc = load_from_l2(partials + (tid < blocks ? tid : 0));
  for (int b = tid + Policy::threads; b < blocks; b += Policy::threads)
    acc = static_cast<Acc>(op(acc, load_from_l2(partials + b)));
  const Acc total = block_reduce(temp, acc, op, blocks < Policy::threads ? blocks : Policy::threads);
  if (tid == 0) *out = static_cast<Out>(op(static_cast<Acc>(init), total));
}

#endif  // __CUDACC__

// Blocks the reduce of n items uses on the current device (1 for small inputs).
template <class Policy, int Vec, class In>
[[nodiscard]] cudaError_t reduce_grid(std::int64_t n, int& grid) {
  constexpr std::int64_t tile_elems = reduce_tile_elems<Policy, Vec>;
  grid = 1;
  if (n * static_cast<std::int64_t>(sizeof(In)) <= Policy::single_block_bytes || n < tile_elems + 16)
    return cudaSuccess;
  int device = 0;
  int sms = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // Every block must own one full tile; the head peel takes fewer than 16 elements.
  const std::int64_t full_tiles = (n - 16) / tile_elems;
  const std::int64_t cap = static_cast<std::int64_t>(sms) * Policy::blocks_per_sm;
  grid = static_cast<int>(full_tiles < cap ? full_tiles : cap);
  return cudaSuccess;
}

}  // namespace detail

//! Reduces `d_in[0 .. num_items)` with `op` and writes `op(init, in[0] op in[1] op ...)` to
//! `*d_out` (just `init` when num_items == 0), asynchronously on `stream`. CUB's
//! `DeviceReduce::Reduce` signature: call once with `d_temp_storage == nullptr` to learn
//! `temp_storage_bytes`, allocate, call again.
//!
//! - One kernel launch for any num_items. Small inputs (<= 64 KiB) run as one block with no
//!   temp storage traffic; larger ones run over the whole GPU and the last block to finish
//!   combines the per-block partials, which needs one 4-byte cudaMemsetAsync of an arrival
//!   counter in the temp storage (the caller's temp memory is not assumed initialized).
//! - Deterministic: the same input at the same address on the same GPU gives bitwise the same
//!   result, whatever the block scheduling (partials are combined in block order).
//! - Accumulates in Acc = reduce_accumulator_t<Op, Init, In> (what op(init, x) returns; 16-bit
//!   floats accumulate in float); each input is converted to Acc before op combines it. Loads are 16 bytes wide when
//!   `d_in` allows; any alignment works.
//! - num_items up to 2^63 - 1.
//!
//! Returns cudaErrorInvalidValue, launching nothing, when num_items < 0, d_out is null,
//! d_in is null while num_items > 0, or the given temp storage is too small or not 16-byte
//! aligned. Otherwise the status of the memset and the launch.
//! \code
//! size_t bytes = 0;
//! tilecraft::reduce(nullptr, bytes, d_in, d_out, n, tilecraft::Sum{}, 0.0f);
//! cudaMalloc(&d_temp, bytes);
//! tilecraft::reduce(d_temp, bytes, d_in, d_out, n, tilecraft::Sum{}, 0.0f, stream);
//! \endcode
template <class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, Out* d_out,
                                 std::int64_t num_items, Op op, Init init, cudaStream_t stream = nullptr) {
  static_assert(std::is_trivially_copyable_v<In>, "tilecraft::reduce: the input type must be trivially copyable");
  static_assert(std::invocable<Op&, const Init&, const In&>,
                "tilecraft::reduce: op(init, *d_in) must be callable (it decides the accumulator type, as in CUB)");
  using Acc = reduce_accumulator_t<Op, Init, In>;
  static_assert(std::is_void_v<Acc> || ReductionOp<Op, Acc>,
                "tilecraft::reduce: op(acc, acc) must be callable on the accumulator type and convertible back to it");
  using Policy = detail::ReducePolicy;
  using Temp = detail::ReduceTemp<Acc>;
  constexpr int vec = detail::reduce_vector_elems<In>;
  if (num_items < 0) return cudaErrorInvalidValue;
  if (d_temp_storage != nullptr && (d_out == nullptr || (num_items > 0 && d_in == nullptr))) {
    return cudaErrorInvalidValue;
  }
  // The temp size must not depend on d_in (it is null in the size query): size it for the
  // larger of the vectorized and the scalar grid.
  int grid_vector = 1;
  int grid_scalar = 1;
  TILECRAFT_RETURN_IF_ERROR(detail::reduce_grid<Policy, vec, In>(num_items, grid_vector));
  TILECRAFT_RETURN_IF_ERROR(detail::reduce_grid<Policy, 1, In>(num_items, grid_scalar));
  const std::size_t needed = Temp::bytes(grid_vector > grid_scalar ? grid_vector : grid_scalar);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (temp_storage_bytes < needed || reinterpret_cast<std::uintptr_t>(d_temp_storage) % 16 != 0) {
    return cudaErrorInvalidValue;
  }
  auto* arrivals = static_cast<unsigned*>(d_temp_storage);
  auto* partials = reinterpret_cast<Acc*>(static_cast<unsigned char*>(d_temp_storage) + Temp::counter_bytes);
  // 16-byte loads need naturally aligned elements (a struct of sizeof 8 may be 4-aligned).
  const bool vectorize = vec > 1 && reinterpret_cast<std::uintptr_t>(d_in) % sizeof(In) == 0;
  const int grid = vectorize ? grid_vector : grid_scalar;
  if (grid > 1) TILECRAFT_RETURN_IF_ERROR(cudaMemsetAsync(arrivals, 0, sizeof(unsigned), stream));
  if (vectorize) {
    detail::reduce_kernel<Policy, vec, In, Out, Acc, Op, Init>
        <<<grid, Policy::threads, 0, stream>>>(d_in, num_items, d_out, op, init, partials, arrivals);
  } else {
    detail::reduce_kernel<Policy, 1, In, Out, Acc, Op, Init>
        <<<grid, Policy::threads, 0, stream>>>(d_in, num_items, d_out, op, init, partials, arrivals);
  }
  return last_launch_error();
}

//! Convenience form: allocates the temp storage itself from the stream-ordered pool
//! (cudaMallocAsync / cudaFreeAsync on `stream`) when the input needs any.
template <class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t reduce(const In* d_in, Out* d_out, std::int64_t num_items, Op op, Init init,
                                 cudaStream_t stream = nullptr) {
  if (num_items < 0 || d_out == nullptr || (num_items > 0 && d_in == nullptr)) return cudaErrorInvalidValue;
  std::size_t bytes = 0;
  TILECRAFT_RETURN_IF_ERROR(reduce(nullptr, bytes, d_in, d_out, num_items, op, init, stream));
  void* temp = nullptr;
  TILECRAFT_RETURN_IF_ERROR(cudaMallocAsync(&temp, bytes, stream));
  const cudaError_t status = reduce(temp, bytes, d_in, d_out, num_items, op, init, stream);
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  return status != cudaSuccess ? status : freed;
}

}  // namespace tilecraft
