//! \file device/detail/reduce_dispatch.cuh
//! tilecraft::reduce's dispatch: argument checks, grid sizing, kernel choice and launch
//! (internal; include device/reduce.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/concepts.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/status.cuh"
#include "reduce_kernels.cuh"

namespace tilecraft::detail {

//! Blocks of the grid kernel for n items of In loaded Vec at a time on the current device;
//! 1 means the single-block kernel.
template <class Policy, int Vec, class In>
[[nodiscard]] cudaError_t reduce_grid_size(std::int64_t n, int& grid) {
  constexpr std::int64_t tile_elems = reduce_tile_elems<Policy, Vec>;
  grid = 1;
  if (n * static_cast<std::int64_t>(sizeof(In)) <= ReduceSingleBlock::max_bytes || n < 2 * tile_elems + 16) {
    return cudaSuccess;
  }
  DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(device_limits(limits));  // (asked once per device: util/device_cache.cuh)
  const int sms = limits.sms;
  // Every block must own one full tile; the head peel takes fewer than 16 elements.
  const std::int64_t full_tiles = (n - 16) / tile_elems;
  const std::int64_t cap = static_cast<std::int64_t>(sms) * Policy::blocks_per_sm;
  grid = static_cast<int>(full_tiles < cap ? full_tiles : cap);
  return cudaSuccess;
}

#if defined(__CUDACC__)
// cooperative_allowed: false runs the grid as two kernels without trying the cooperative launch
// (tests compare the paths).
template <class GridPolicy, int Vec, class In, class Out, class Acc, class Op, class Init>
[[nodiscard]] cudaError_t launch_reduce(int grid, const In* d_in, std::int64_t n, Out* d_out, Op op, Init init,
                                        Acc* partials, cudaStream_t stream, bool cooperative_allowed = true) {
  if (grid <= 1) {
    const std::int64_t bytes = n * static_cast<std::int64_t>(sizeof(In));
    // (A grid policy with large tiles takes one block above max_bytes too: see reduce_grid_size.)
    if constexpr (Vec > 1) {
      auto one_tile = [&](auto policy) {
        using Policy = decltype(policy);
        return launch_kernel(reduce_one_tile_kernel<Policy, Vec, GridPolicy::hint, In, Out, Acc, Op, Init>, dim3(1),
                             dim3(Policy::threads), 0, stream, d_in, static_cast<int>(n), d_out, op, init);
      };
      if (bytes <= ReduceSingleBlock::Narrow::max_bytes) return one_tile(ReduceSingleBlock::Narrow{});
      if (bytes <= ReduceSingleBlock::Mid::max_bytes) return one_tile(ReduceSingleBlock::Mid{});
      if (bytes <= ReduceSingleBlock::Wide::max_bytes) return one_tile(ReduceSingleBlock::Wide{});
    }
    auto single_block = [&](auto policy) {
      using Policy = decltype(policy);
      return launch_kernel(reduce_single_block_kernel<Policy, Vec, GridPolicy::hint, In, Out, Acc, Op, Init>, dim3(1),
                           dim3(Policy::threads), 0, stream, d_in, n, d_out, op, init);
    };
    return bytes <= ReduceSingleBlock::narrow_max_bytes ? single_block(ReduceSingleBlock::Narrow{})
                                                        : single_block(ReduceSingleBlock::General{});
  }
  using Policy = GridPolicy;
  auto kernel = reduce_grid_kernel<Policy, Vec, In, Out, Acc, Op, Init>;
  if (cooperative_allowed) {
    const cudaError_t launched = launch_cooperative(kernel, dim3(static_cast<unsigned>(grid)), dim3(Policy::threads), 0,
                                                    stream, d_in, n, d_out, op, init, partials, true);
    // The grid is sized by the SMs the device reports; where it gives this process fewer (MPS,
    // green contexts) or has no cooperative launches, the launch is refused before it runs (a
    // refusal that a stream capture defers to the graph's instantiation fails there). Then the
    // same grid runs without its barrier and a second kernel folds its partials: the same
    // association, so the same bits.
    if (!cooperative_refused(launched)) return launched;
  }
  TILECRAFT_RETURN_IF_ERROR(launch_kernel(kernel, dim3(static_cast<unsigned>(grid)), dim3(Policy::threads), 0, stream,
                                          d_in, n, d_out, op, init, partials, false));
  return launch_kernel(reduce_partials_kernel<Policy, Acc, Out, Op, Init>, dim3(1), dim3(Policy::threads), 0, stream,
                       static_cast<const Acc*>(partials), grid, d_out, op, init);
}
#endif

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

// reduce_with once its type rules hold.
template <class GridPolicy, class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t reduce_checked(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                                         Out* d_out, std::int64_t num_items, Op op, Init init, cudaStream_t stream) {
  using Acc = typename ReduceAccumulator<Op, Init, In>::type;
  constexpr int vec = detail::reduce_vector_elems<In>;
  // An array of num_items items must have a byte size (the launch paths are chosen on it).
  if (num_items < 0 || num_items > INT64_MAX / static_cast<std::int64_t>(sizeof(In))) return cudaErrorInvalidValue;
  if (d_temp_storage != nullptr && (d_out == nullptr || (num_items > 0 && d_in == nullptr) ||
                                    !detail::element_aligned(d_in) || !detail::element_aligned(d_out))) {
    return cudaErrorInvalidValue;
  }
  // The temp size must not depend on d_in (it is null in the size query): size it for the
  // larger of the vectorized and the scalar grid.
  int grid_vector = 1;
  int grid_scalar = 1;
  TILECRAFT_RETURN_IF_ERROR(detail::reduce_grid_size<GridPolicy, vec, In>(num_items, grid_vector));
  TILECRAFT_RETURN_IF_ERROR(detail::reduce_grid_size<GridPolicy, 1, In>(num_items, grid_scalar));
  const int most = grid_vector > grid_scalar ? grid_vector : grid_scalar;
  const std::size_t needed = most <= 1 ? 16 : sizeof(Acc) * static_cast<std::size_t>(most);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  // The grid kernel writes its partials into temp while other blocks may still read d_in.
  // (The partials are Acc values at the start of temp: aligned for Acc, and to 16 bytes.)
  constexpr std::size_t temp_alignment = alignof(Acc) > 16 ? alignof(Acc) : 16;
  if (temp_storage_bytes < needed || reinterpret_cast<std::uintptr_t>(d_temp_storage) % temp_alignment != 0 ||
      detail::bytes_overlap(d_temp_storage, needed, d_in, static_cast<std::size_t>(num_items) * sizeof(In))) {
    return cudaErrorInvalidValue;
  }
#if defined(__CUDACC__)
  auto* partials = static_cast<Acc*>(d_temp_storage);
  // 16-byte loads need naturally aligned elements (a struct of sizeof 8 may be 4-aligned).
  if (vec > 1 && reinterpret_cast<std::uintptr_t>(d_in) % sizeof(In) == 0) {
    return detail::launch_reduce<GridPolicy, vec>(grid_vector, d_in, num_items, d_out, op, init, partials, stream);
  }
  return detail::launch_reduce<GridPolicy, 1>(grid_scalar, d_in, num_items, d_out, op, init, partials, stream);
#else
  (void)op, (void)init, (void)stream;  // host compilers: argument checks and size queries only
  return cudaErrorInvalidDeviceFunction;
#endif
}

// tilecraft::reduce with a chosen grid policy (the benchmarks measure alternatives). The type
// rules are checked one at a time, each stopping compilation of the rest, so a broken rule
// gives its own message and not a cascade from the code behind it.
template <class GridPolicy, class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t reduce_with(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, Out* d_out,
                                      std::int64_t num_items, Op op, Init init, cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<In>, "tilecraft::reduce: the input type must be trivially copyable");
  static_assert(std::invocable<Op&, const Init&, const In&>,
                "tilecraft::reduce: op(init, *d_in) must be callable (it decides the accumulator type, as in CUB)");
  if constexpr (std::is_trivially_copyable_v<In> && std::invocable<Op&, const Init&, const In&>) {
    using Acc = typename ReduceAccumulator<Op, Init, In>::type;
    static_assert(
        std::is_void_v<Acc> || ReductionOp<Op, Acc>,
        "tilecraft::reduce: op(acc, acc) must be callable on the accumulator type and convertible back to it");
    if constexpr (!std::is_void_v<Acc> && ReductionOp<Op, Acc>) {
      return reduce_checked<GridPolicy>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op, init, stream);
    } else {
      return cudaErrorInvalidValue;
    }
  } else {
    return cudaErrorInvalidValue;
  }
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft::detail
