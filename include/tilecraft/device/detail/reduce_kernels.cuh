//! \file device/detail/reduce_kernels.cuh
//! tilecraft::reduce's kernels and their per-thread fold (internal; include device/reduce.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../arch/grid_sync.cuh"
#include "../../block/block_reduce.cuh"
#include "../../config.cuh"
#include "../../memory/global_word.cuh"
#include "../../util/math.cuh"
#include "../../util/thread.cuh"

namespace tilecraft::detail {

template <class Op, class Init, class In>
struct ReduceAccumulator {
  using type = void;
};
template <class Op, class Init, class In>
requires std::invocable<Op&, const Init&, const In&>
struct ReduceAccumulator<Op, Init, In> {
  using type = block_accumulator_t<std::decay_t<std::invoke_result_t<Op&, const Init&, const In&>>>;
};

//! Launch shapes of tilecraft::reduce. A tile is what one block reads per step: every thread
//! issues `vectors_per_thread` independent 16-byte loads before combining any of them.
//! Small inputs go to one block (up to 128 KiB in flight, no partials, no grid barrier);
//! large ones to a cooperative grid of `blocks_per_sm` blocks per multiprocessor, all
//! resident at once (__launch_bounds__ caps registers so that they fit on sm_75 ... sm_90).
template <int Threads, int VectorsPerThread, int Rounds = 1>
struct ReduceSingleBlockPolicy {
  static constexpr int threads = Threads;
  static constexpr int vectors_per_thread = VectorsPerThread;
  //! Tiles reduce_one_tile_kernel reads, one after the other (each with all its loads in flight).
  static constexpr int rounds = Rounds;
  //! The most bytes reduce_one_tile_kernel covers with 16-byte loads.
  static constexpr std::int64_t max_bytes = std::int64_t{Threads} * VectorsPerThread * Rounds * 16;
};
//! Inputs up to 256 KiB take one block: below that one multiprocessor streams the input in
//! less time than a grid takes to launch and meet at its barrier. Loaded as 16-byte vectors,
//! they take the lean reduce_one_tile_kernel, in the smallest block that covers them with all
//! its loads in flight: more threads mean a longer reduction tree, fewer loads in flight a
//! longer stream (measured on the H200, benchmarks/TUNING.md: a 1024-thread block costs 0.15 us
//! more than a 256-thread one at 4 KiB; the general kernel, whose leftover vectors load one per
//! thread per trip, took 1 to 2 us more from 32 KiB to 200 KiB). Up to 16 KiB 256 threads with
//! 4 loads each; up to 64 KiB 1024 threads with 4; up to 256 KiB 1024 threads with 8, in two
//! rounds. Loaded element by element (Vec == 1), a 256-thread block up to 16 KiB and General
//! above: a 1024-thread block with 8 loads per thread per step (reduce_single_block_kernel).
struct ReduceSingleBlock {
  static constexpr std::int64_t max_bytes = 256 * 1024;
  static constexpr std::int64_t narrow_max_bytes = 16 * 1024;
  using Narrow = ReduceSingleBlockPolicy<256, 4>;
  using Mid = ReduceSingleBlockPolicy<1024, 4>;
  using Wide = ReduceSingleBlockPolicy<1024, 8, 2>;
  using General = ReduceSingleBlockPolicy<1024, 8>;
  static_assert(Narrow::max_bytes == narrow_max_bytes && Wide::max_bytes == max_bytes,
                "ReduceSingleBlock: the vector tiers must cover their byte ranges");
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

// How n elements from `in` meet 16-byte vector loads, which need 16-byte-aligned addresses:
// `head` elements before the first 16-byte boundary (the launcher picks Vec > 1 only for
// naturally aligned elements, so this is a whole number of them; none when Vec == 1), then
// `vectors` aligned Vec-element vectors, then the tail. One split in two widths: std::int64_t
// where arrays can pass 2^31 elements, int in the latency-bound one-tile kernel, where 64-bit
// integer math is pairs of 32-bit instructions ahead of the first load.
template <class Index, int Vec, class In>
struct HeadBodyTail {
  Index head;
  Index vectors;

  TILECRAFT_DEVICE HeadBodyTail(const In* in, Index n) {
    const auto addr = reinterpret_cast<std::uintptr_t>(in);
    const Index to_boundary = Vec == 1 ? 0 : static_cast<Index>((16 - addr % 16) % 16 / sizeof(In));
    head = to_boundary < n ? to_boundary : n;
    vectors = (n - head) / Vec;
  }
  TILECRAFT_DEVICE Index tail_begin() const { return head + vectors * Vec; }
};

// The grid's split: HeadBodyTail, whose vectors form tiles (what one block reads per step);
// `full_tiles` of them are dealt to blocks round-robin.
template <class Policy, int Vec, class In>
struct ReduceSplit : HeadBodyTail<std::int64_t, Vec, In> {
  static constexpr std::int64_t tile_vectors = static_cast<std::int64_t>(Policy::threads) * Policy::vectors_per_thread;
  std::int64_t full_tiles;

  TILECRAFT_DEVICE ReduceSplit(const In* in, std::int64_t n)
      : HeadBodyTail<std::int64_t, Vec, In>(in, n), full_tiles(this->vectors / tile_vectors) {}
  //! Threads of a lone block (grid of 1) that receive at least one element: a prefix.
  TILECRAFT_DEVICE int single_block_valid_threads(std::int64_t n) const {
    if (full_tiles > 0) return Policy::threads;
    const std::int64_t tail = n - this->tail_begin();
    std::int64_t most = this->vectors < Policy::threads ? this->vectors : Policy::threads;
    most = this->head > most ? this->head : most;
    most = tail > most ? tail : most;
    return static_cast<int>(most);
  }
};

template <class Acc>
struct Partial {
  Acc value;
  bool valid;
};

// Folds one thread's share of `in`. The split depends only on n, the grid size and the input's
// alignment, so the same call always combines the same values in the same order.
//   full tiles: every thread of a block owns vectors_per_thread vectors of each of its tiles and
//               issues all their loads before combining any (so the value starts from real
//               data and no identity element is needed);
//   the rest:   the vectors after the last full tile, the unaligned head and the tail, dealt
//               to threads across the grid one vector or element each.
template <class Policy, int Vec, CacheHint Hint, class In, class Acc, class Op>
TILECRAFT_DEVICE Partial<Acc> thread_reduce_spread(const In* in, std::int64_t n, Op op) {
  using Word = typename ReduceLoad<In, Vec>::Word;
  using Split = ReduceSplit<Policy, Vec, In>;
  constexpr std::int64_t tile_vectors = Split::tile_vectors;
  const Split split(in, n);
  const Word* body = reinterpret_cast<const Word*>(in + split.head);
  const int tid = threadIdx.x;

  auto load = [&](std::int64_t v, In(&x)[Vec]) {
    const Word w = load_global_word<Hint>(body + v);
    std::memcpy(x, &w, sizeof(w));
  };
  Partial<Acc> p{Acc{}, false};
  auto fold = [&](const In& x) {
    p.value = p.valid ? static_cast<Acc>(op(p.value, static_cast<Acc>(x))) : static_cast<Acc>(x);
    p.valid = true;
  };

  if (static_cast<std::int64_t>(blockIdx.x) < split.full_tiles) {
    const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tile_vectors + tid;
    In x[Policy::vectors_per_thread][Vec];
#pragma unroll
    for (int k = 0; k < Policy::vectors_per_thread; ++k) load(base + k * Policy::threads, x[k]);
    p.value = static_cast<Acc>(x[0][0]);
    p.valid = true;
#pragma unroll
    for (int j = 1; j < Vec; ++j) p.value = static_cast<Acc>(op(p.value, static_cast<Acc>(x[0][j])));
#pragma unroll
    for (int k = 1; k < Policy::vectors_per_thread; ++k) {
#pragma unroll
      for (int j = 0; j < Vec; ++j) p.value = static_cast<Acc>(op(p.value, static_cast<Acc>(x[k][j])));
    }
  }
  for (std::int64_t t = blockIdx.x + gridDim.x; t < split.full_tiles; t += gridDim.x) {
    const std::int64_t base = t * tile_vectors + tid;
    In x[Policy::vectors_per_thread][Vec];
#pragma unroll
    for (int k = 0; k < Policy::vectors_per_thread; ++k) load(base + k * Policy::threads, x[k]);
#pragma unroll
    for (int k = 0; k < Policy::vectors_per_thread; ++k) {
#pragma unroll
      for (int j = 0; j < Vec; ++j) p.value = static_cast<Acc>(op(p.value, static_cast<Acc>(x[k][j])));
    }
  }
  // The rest, spread over every thread of the grid.
  const std::int64_t gtid = static_cast<std::int64_t>(blockIdx.x) * Policy::threads + tid;
  const std::int64_t gthreads = static_cast<std::int64_t>(gridDim.x) * Policy::threads;
  for (std::int64_t v = split.full_tiles * tile_vectors + gtid; v < split.vectors; v += gthreads) {
    In x[Vec];
    load(v, x);
#pragma unroll
    for (int j = 0; j < Vec; ++j) fold(x[j]);
  }
  if (gtid < split.head) fold(in[gtid]);
  for (std::int64_t i = split.tail_begin() + gtid; i < n; i += gthreads) fold(in[i]);
  return p;
}

// One block reduces everything and writes the result: small inputs, n == 0 included.
template <class Policy, int Vec, CacheHint Hint, class In, class Out, class Acc, class Op, class Init>
__global__ void __launch_bounds__(Policy::threads)
    reduce_single_block_kernel(const In* in, std::int64_t n, Out* out, Op op, Init init) {
  __shared__ BlockReduceStorage<Acc, Policy::threads> temp;
  if (n == 0) {
    if (threadIdx.x == 0) *out = static_cast<Out>(static_cast<Acc>(init));
    return;
  }
  const int valid = ReduceSplit<Policy, Vec, In>(in, n).single_block_valid_threads(n);
  const Acc total = block_reduce(temp, thread_reduce_spread<Policy, Vec, Hint, In, Acc>(in, n, op).value, op, valid);
  if (threadIdx.x == 0) *out = static_cast<Out>(op(static_cast<Acc>(init), total));
}

// Inputs of at most Policy::max_bytes (256 KiB) loaded as 16-byte vectors: the lean path. A
// launch this small is latency-bound (a DRAM round trip or two), so every load is issued
// within a few 32-bit instructions of the kernel's start (the general kernel's 64-bit split
// arithmetic costs about 0.1 us before its first load), and a second round, where there is
// one, issues all of its loads at once too (the general kernel's remainder loop issues one
// load per thread per trip). Requires `in` aligned to sizeof(In) and
// n * sizeof(In) <= Policy::max_bytes.
template <class Policy, int Vec, CacheHint Hint, class In, class Out, class Acc, class Op, class Init>
__global__ void __launch_bounds__(Policy::threads)
    reduce_one_tile_kernel(const In* in, int n, Out* out, Op op, Init init) {
  static_assert(Vec > 1, "reduce_one_tile_kernel: only for inputs loaded as vectors");
  using Word = typename ReduceLoad<In, Vec>::Word;
  constexpr int threads = Policy::threads;
  __shared__ BlockReduceStorage<Acc, threads> temp;
  const int tid = threadIdx.x;
  const HeadBodyTail<int, Vec, In> split(in, n);
  const int tail_begin = split.tail_begin();
  const Word* body = reinterpret_cast<const Word*>(in + split.head);
  Word w[Policy::vectors_per_thread];
#pragma unroll
  for (int k = 0; k < Policy::vectors_per_thread; ++k) {
    if (tid + k * threads < split.vectors) w[k] = load_global_word<Hint>(body + tid + k * threads);
  }
  if (n == 0) {
    if (tid == 0) *out = static_cast<Out>(static_cast<Acc>(init));
    return;
  }
  Partial<Acc> p{Acc{}, false};
  auto fold = [&](const In& x) {
    p.value = p.valid ? static_cast<Acc>(op(p.value, static_cast<Acc>(x))) : static_cast<Acc>(x);
    p.valid = true;
  };
  auto fold_round = [&](const Word(&words)[Policy::vectors_per_thread], int first) {
#pragma unroll
    for (int k = 0; k < Policy::vectors_per_thread; ++k) {
      if (first + tid + k * threads < split.vectors) {
        In x[Vec];
        std::memcpy(x, &words[k], sizeof(Word));
#pragma unroll
        for (int j = 0; j < Vec; ++j) fold(x[j]);
      }
    }
  };
  fold_round(w, 0);
  // Further rounds (inputs above one tile), each tile's loads issued together.
  constexpr int tile = threads * Policy::vectors_per_thread;
#pragma unroll
  for (int r = 1; r < Policy::rounds; ++r) {
    if (r * tile >= split.vectors) break;
#pragma unroll
    for (int k = 0; k < Policy::vectors_per_thread; ++k) {
      const int v = r * tile + tid + k * threads;
      if (v < split.vectors) w[k] = load_global_word<Hint>(body + v);
    }
    fold_round(w, r * tile);
  }
  if (tid < split.head) fold(in[tid]);
  if (tid < n - tail_begin) fold(in[tail_begin + tid]);
  // Threads holding a value form a prefix: those with a vector, a head or a tail element.
  // (Written out here rather than shared with single_block_valid_threads: in a function the
  // compiler folds `vectors < threads` into a compare of n - head, one instruction more.)
  int valid = split.vectors < threads ? split.vectors : threads;
  valid = split.head > valid ? split.head : valid;
  valid = n - tail_begin > valid ? n - tail_begin : valid;
  const Acc total = block_reduce(temp, p.value, op, valid);
  if (tid == 0) *out = static_cast<Out>(op(static_cast<Acc>(init), total));
}

// The end of a grid's reduction, by one block: the `blocks` partials folded in block order (each
// thread a strided share, then block_reduce in rank order: the same association wherever it
// runs), init in front, into *out.
template <class Policy, class Acc, class Out, class Op, class Init>
TILECRAFT_DEVICE void fold_partials(BlockReduceStorage<Acc, Policy::threads>& temp, const Acc* partials, int blocks,
                                    Out* out, Op op, Init init) {
  const int tid = static_cast<int>(threadIdx.x);
  Acc acc = load_from_l2(partials + (tid < blocks ? tid : 0));
  for (int b = tid + Policy::threads; b < blocks; b += Policy::threads) {
    acc = static_cast<Acc>(op(acc, load_from_l2(partials + b)));
  }
  const Acc total = block_reduce(temp, acc, op, blocks < Policy::threads ? blocks : Policy::threads);
  if (tid == 0) *out = static_cast<Out>(op(static_cast<Acc>(init), total));
}

// The whole GPU: each block folds its share and publishes a partial, the grid meets at a
// grid-wide barrier (cooperative launch: every block is resident, the barrier's state is the
// driver's, so the caller's temp memory needs no initialization), and block 0 folds the
// partials in block order, so the result does not depend on which block finished first.
// cooperative false (a launch that is not cooperative, where one was refused): the blocks only
// publish their partials, and reduce_partials_kernel, launched after, folds them the same way.
template <class Policy, int Vec, class In, class Out, class Acc, class Op, class Init>
__global__ void __launch_bounds__(Policy::threads, Policy::blocks_per_sm)
    reduce_grid_kernel(const In* in, std::int64_t n, Out* out, Op op, Init init, Acc* partials, bool cooperative) {
  __shared__ BlockReduceStorage<Acc, Policy::threads> temp;
  // The launcher gives every block at least one full tile, so every thread holds a value.
  const Acc block_total =
      block_reduce(temp, thread_reduce_spread<Policy, Vec, Policy::hint, In, Acc>(in, n, op).value, op);
  if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
  if (!cooperative) return;
  arch::grid_sync();  // (its barriers free `temp` again, too)
  if (blockIdx.x != 0) return;
  fold_partials<Policy>(temp, partials, static_cast<int>(gridDim.x), out, op, init);
}

// reduce_grid_kernel's end where it ran without its grid barrier: one block folds the partials
// the grid published (the same association, so the same bits).
template <class Policy, class Acc, class Out, class Op, class Init>
__global__ void __launch_bounds__(Policy::threads)
    reduce_partials_kernel(const Acc* partials, int blocks, Out* out, Op op, Init init) {
  __shared__ BlockReduceStorage<Acc, Policy::threads> temp;
  fold_partials<Policy>(temp, partials, blocks, out, op, init);
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
