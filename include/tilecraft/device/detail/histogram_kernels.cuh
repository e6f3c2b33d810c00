//! \file device/detail/histogram_kernels.cuh
//! tilecraft::histogram_even / histogram_range: the bin computations and the sweep kernel
//! (internal; include device/histogram.cuh).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../arch/grid_sync.cuh"
#include "../../arch/shared_atomic.cuh"
#include "../../block/detail/histogram_counters.cuh"
#include "../../config.cuh"
#include "../../memory/global_word.cuh"
#include "../../util/thread.cuh"

namespace tilecraft::detail {

//! Where a launch keeps its counters and how it splits the work (the dispatch fills it in).
struct HistogramPlan {
  BlockHistogramAlgorithm algorithm = BlockHistogramAlgorithm::block;  //!< shared layout
  int copies = 1;                                                      //!< sub-histograms per block
  int bins = 1;                                                        //!< bins counted
  int cells = 0;                                                       //!< range: lookup cells (power of 2)
  std::int64_t flush_tiles = 0;  //!< tiles a block sweeps between flushes of its 32-bit counters
  bool sync_first = false;       //!< meet at the grid barrier before the sweep (flushes need it)
  bool cooperative = true;       //!< the grid zeroes the output and meets at its barrier (else: zeroed before)
};

//! The order-preserving unsigned key of a level-domain value: integers with the sign bit
//! flipped; floats with -0 taken as +0, then all bits flipped for negatives and the sign bit
//! for the rest (so key order is numeric order for every non-NaN float).
TILECRAFT_HOST_DEVICE inline unsigned histogram_key(int v) { return static_cast<unsigned>(v) ^ 0x80000000u; }
#if defined(__CUDACC__)
TILECRAFT_DEVICE unsigned histogram_key(float v) {
  const unsigned b = __float_as_uint(__fadd_rn(v, 0.0f));
  return b ^ ((b >> 31) != 0 ? 0xffffffffu : 0x80000000u);
}
#endif

//! Even bins of 8- and 16-bit samples: d = x - lower, valid when d < range, bin = floor(d x bins /
//! range) computed as floor(d x M / 2^32) with M = ceil(bins x 2^32 / range): exact, because
//! d < range <= 2^16 makes the error of M below one part in range (two multiplies, no divide).
//! Where range = bins x 2^shift (256 bins of bytes: shift 0) the kernel takes EvenBinsShift.
struct EvenBinsNarrow {
  unsigned lower;   //!< the lower level as the sample's unsigned value
  unsigned range;   //!< upper - lower
  unsigned mul_lo;  //!< low word of M
  unsigned mul_hi;  //!< high word of M
  int shift;        //!< log2(range / bins) when that is a whole power of two, else -1
#if defined(__CUDACC__)
  template <class Sample>
  TILECRAFT_DEVICE bool valid(Sample x) const {
    return static_cast<unsigned>(x) - lower < range;
  }
  template <class Sample>
  TILECRAFT_DEVICE unsigned bin(Sample x) const {
    const unsigned d = static_cast<unsigned>(x) - lower;
    return __umulhi(d, mul_lo) + d * mul_hi;
  }
#endif
};

//! EvenBinsNarrow where range = bins x 2^shift: bin = d >> shift.
struct EvenBinsShift {
  unsigned lower;
  unsigned range;
  unsigned shift;
#if defined(__CUDACC__)
  template <class Sample>
  TILECRAFT_DEVICE bool valid(Sample x) const {
    return static_cast<unsigned>(x) - lower < range;
  }
  template <class Sample>
  TILECRAFT_DEVICE unsigned bin(Sample x) const {
    return (static_cast<unsigned>(x) - lower) >> shift;
  }
#endif
};

//! Even bins of 32-bit integer samples: d = x - lower (mod 2^32), valid when d < range, bin =
//! floor(d x bins / range): a float estimate within one of the quotient (bins <= 2^22), corrected
//! by one 64-bit multiply and compare, instead of a 64-bit division.
struct EvenBinsWide {
  unsigned lower;  //!< the lower level's bits
  unsigned range;  //!< upper - lower (mod 2^32)
  unsigned bins;   //!< bins counted
  float scale;     //!< bins / range, rounded
#if defined(__CUDACC__)
  TILECRAFT_DEVICE bool valid(int x) const { return static_cast<unsigned>(x) - lower < range; }
  TILECRAFT_DEVICE unsigned bin(int x) const {
    const unsigned d = static_cast<unsigned>(x) - lower;
    unsigned q = __float2uint_rz(__fmul_rn(__uint2float_rn(d), scale));
    const std::uint64_t n = static_cast<std::uint64_t>(d) * bins;
    const std::uint64_t t = static_cast<std::uint64_t>(q) * range;
    if (t > n) {
      --q;
    } else if (t + range <= n) {
      ++q;
    }
    return q;
  }
#endif
};

//! Even bins of float samples, the documented formula: valid when lower <= x < upper (NaN is
//! not), bin = min((int)((x - lower) * scale), bins - 1) in float arithmetic, each operation
//! rounded to nearest (no contraction), with scale = (float)bins / (upper - lower) from the host.
struct EvenBinsFloat {
  float lower;    //!< lower level
  float upper;    //!< upper level (exclusive)
  float scale;    //!< bins / (upper - lower), rounded to nearest
  unsigned last;  //!< bins - 1
#if defined(__CUDACC__)
  TILECRAFT_DEVICE bool valid(float x) const { return x >= lower && x < upper; }
  TILECRAFT_DEVICE unsigned bin(float x) const {
    const auto b = static_cast<unsigned>(__float2int_rz(__fmul_rn(__fsub_rn(x, lower), scale)));
    return b < last ? b : last;
  }
#endif
};

// The even-bin parameters need no shared memory: the same object serves every kernel.
template <class Op>
struct EvenParams {
  Op op;
  static constexpr bool is_range = false;
#if defined(__CUDACC__)
  template <bool Shared>
  TILECRAFT_DEVICE Op prepare(unsigned char*, int, int, int) const {
    return op;
  }
#endif
};

//! Range bins: bin = the largest i with levels[i] <= x, valid when levels[0] <= x <
//! levels[bins] (compared in the level type: int, or float, where NaN is never valid). Guided
//! by `cells`, a lookup table over the keys of [levels[0], levels[bins]) cut into 2^k cells of
//! 2^shift keys, each holding the bins of its first and last key (lo | hi << 16): the bin of a
//! sample is in [lo, hi], most often lo == hi, and a binary search over levels[lo ... hi]
//! settles the rest. Without cells (too many bins for shared memory) the search spans all.
template <class Level>
struct RangeBins {
  const Level* levels;
  const unsigned* cells;
  Level first;
  Level last;
  unsigned key0;
  int shift;
  int bins;
#if defined(__CUDACC__)
  template <class Sample>
  TILECRAFT_DEVICE bool valid(Sample sample) const {
    const auto x = static_cast<Level>(sample);
    return x >= first && x < last;
  }
  template <class Sample>
  TILECRAFT_DEVICE unsigned bin(Sample sample) const {
    const auto x = static_cast<Level>(sample);
    int lo = 0;
    int hi = bins - 1;
    if (cells != nullptr) {
      const unsigned c = cells[(histogram_key(x) - key0) >> shift];
      lo = static_cast<int>(c & 0xffffu);
      hi = static_cast<int>(c >> 16);
    }
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (levels[mid] <= x) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return static_cast<unsigned>(lo);
  }
#endif
};

template <class Level>
struct RangeParams {
  const Level* levels;  // bins + 1 levels in global memory
  int bins;
  int cells;  // lookup cells when the levels go to shared memory (power of 2 <= 65536)
  static constexpr bool is_range = true;

  //! Shared memory bytes of the levels and the lookup cells.
  static constexpr std::int64_t shared_bytes(int bin_count, int cell_count) {
    return (static_cast<std::int64_t>(bin_count) + 1 + 3) / 4 * 16 + static_cast<std::int64_t>(cell_count) * 4;
  }

#if defined(__CUDACC__)
  // Shared: copies the levels into `smem` and builds the lookup cells after them (all threads;
  // ends with a barrier). Global: searches the levels where they are.
  template <bool Shared>
  TILECRAFT_DEVICE RangeBins<Level> prepare(unsigned char* smem, int rank, int threads, int) const {
    RangeBins<Level> r{levels, nullptr, levels[0], levels[bins], 0u, 0, bins};
    if constexpr (Shared) {
      auto* lv = reinterpret_cast<Level*>(smem);
      auto* cell = reinterpret_cast<unsigned*>(smem + (static_cast<std::int64_t>(bins) + 1 + 3) / 4 * 16);
      for (int i = rank; i <= bins; i += threads) lv[i] = levels[i];
      for (int j = rank; j < cells; j += threads) cell[j] = 0;
      const unsigned key0 = histogram_key(r.first);
      const unsigned key_end = histogram_key(r.last);
      const unsigned span = key_end > key0 ? key_end - key0 : 1u;
      int log_cells = 0;
      while ((1 << log_cells) < cells) ++log_cells;
      int shift = 0;
      while (((span - 1) >> shift) >= static_cast<unsigned>(cells)) ++shift;
      // Levels whose keys are out of order (levels that decrease, or NaN among them: counts
      // unspecified, as documented) would give levels overlapping cell ranges, which several
      // threads would write: such a block searches all the levels instead (no table).
      bool disordered = false;
      for (int i = rank; i < bins; i += threads) disordered |= histogram_key(levels[i]) > histogram_key(levels[i + 1]);
      const bool table = !__syncthreads_or(disordered);  // (the barrier after the copies too)
      // Level i owns the cells whose first key is in [key_i, key_i+1) (their lo) and those whose
      // last key is (their hi); the last bin owns everything up to the end of the table.
      auto* half = reinterpret_cast<unsigned short*>(cell);
      auto offset = [&](int i) -> std::int64_t {
        const std::int64_t k = static_cast<std::int64_t>(histogram_key(lv[i])) - key0;
        return k < 0 ? 0 : k;
      };
      const std::int64_t unit = std::int64_t{1} << shift;
      if (table) {
        for (int i = rank; i < bins; i += threads) {
          const std::int64_t k = offset(i);
          const std::int64_t k_next = i + 1 < bins ? offset(i + 1) : std::int64_t{cells} << shift;
          const std::int64_t lo_end = (k_next + unit - 1) >> shift;
          for (std::int64_t j = (k + unit - 1) >> shift; j < lo_end && j < cells; ++j)
            half[2 * j] = static_cast<unsigned short>(i);
          const std::int64_t hi_end = i + 1 < bins ? k_next >> shift : cells;
          for (std::int64_t j = k >> shift; j < hi_end && j < cells; ++j)
            half[2 * j + 1] = static_cast<unsigned short>(i);
        }
      }
      __syncthreads();
      r.levels = lv;
      r.cells = table ? cell : nullptr;
      r.key0 = key0;
      r.shift = shift;
    }
    return r;
  }
#endif
};

#if defined(__CUDACC__)

// Calls f(op), or f with EvenBinsShift where a narrow op's bins are a power-of-two division of
// its range (a block-uniform branch around the whole sweep: one kernel, two loops).
template <class Op, class F>
TILECRAFT_DEVICE void with_bin_op(const Op& op, F&& f) {
  if constexpr (std::is_same_v<Op, EvenBinsNarrow>) {
    if (op.shift >= 0) {
      f(EvenBinsShift{op.lower, op.range, static_cast<unsigned>(op.shift)});
      return;
    }
  }
  f(op);
}

//! Elements of Sample per 16-byte load.
template <class Sample>
inline constexpr int histogram_vector_elems = 16 / static_cast<int>(sizeof(Sample));

// The sweep: every thread of the grid visits its samples, calling visit(x, count) for each (count
// 1, or a whole vector of equal samples at once with Policy::vector_runs); after each
// full tile of Policy::threads x vectors_per_thread 16-byte vectors, tile_done() (block-uniform).
// Vectors start at the first 16-byte boundary; the head before it and the tail after the last
// whole vector go to the threads of the last block, one element each.
template <class Policy, class Sample, class Visit, class TileDone>
TILECRAFT_DEVICE void histogram_sweep(const Sample* in, std::int64_t n, Visit&& visit, TileDone&& tile_done) {
  constexpr int vec = histogram_vector_elems<Sample>;
  constexpr int threads = Policy::threads;
  constexpr int per_thread = Policy::vectors_per_thread;
  constexpr std::int64_t tile_vectors = static_cast<std::int64_t>(threads) * per_thread;
  const auto addr = reinterpret_cast<std::uintptr_t>(in);
  const std::int64_t to_boundary = static_cast<std::int64_t>((16 - addr % 16) % 16 / sizeof(Sample));
  const std::int64_t head = to_boundary < n ? to_boundary : n;
  const std::int64_t vectors = (n - head) / vec;
  const std::int64_t tail_begin = head + vectors * vec;
  const uint4* body = reinterpret_cast<const uint4*>(in + head);
  const int tid = static_cast<int>(threadIdx.x);

  auto unpack = [&](const uint4& w) {
    Sample x[vec];
    std::memcpy(x, &w, sizeof(w));
    if constexpr (Policy::vector_runs) {
      // A vector of one value (all-equal input, long runs of sorted input) is counted once.
      constexpr unsigned spread = sizeof(Sample) == 1 ? 0x01010101u : sizeof(Sample) == 2 ? 0x00010001u : 1u;
      constexpr unsigned mask = sizeof(Sample) == 1 ? 0xffu : sizeof(Sample) == 2 ? 0xffffu : 0xffffffffu;
      if (w.x == w.y && w.y == w.z && w.z == w.w && w.x == (w.x & mask) * spread) {
        visit(x[0], static_cast<unsigned>(vec));
        return;
      }
    }
#pragma unroll
    for (int j = 0; j < vec; ++j) visit(x[j], 1u);
  };
  const std::int64_t full_tiles = vectors / tile_vectors;
  for (std::int64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    uint4 w[per_thread];
    const uint4* p = body + t * tile_vectors + tid;
#pragma unroll
    for (int k = 0; k < per_thread; ++k) w[k] = p[k * threads];
#pragma unroll
    for (int k = 0; k < per_thread; ++k) unpack(w[k]);
    tile_done();
  }
  // The vectors of the last, partial tile, then the head and the tail.
  if (blockIdx.x == (full_tiles % gridDim.x)) {
    for (std::int64_t v = full_tiles * tile_vectors + tid; v < vectors; v += threads) unpack(body[v]);
  }
  if (blockIdx.x == gridDim.x - 1) {
    if (tid < head) visit(in[tid], 1u);
    if (tid < n - tail_begin) visit(in[tail_begin + tid], 1u);
  }
}

// One kernel for every layout: counters in shared memory (Shared: privatized as plan.algorithm
// says, merged once per block) or straight in global memory (too many bins for shared memory).
// A cooperative launch (every block resident): blocks zero their slice of the output, sweep,
// and meet at the grid barrier before the first atomic into the output (before the sweep for
// global counters and for flushing launches, after it otherwise, where nobody waits long).
// plan.cooperative false (where the cooperative launch was refused): the output was zeroed
// before the launch, and the grid neither zeroes it nor meets.
// Aggregate: runs of equal bins of one thread go in with one atomic.
template <class Policy, bool Shared, bool Aggregate, class Sample, class Counter, class Params>
__global__ void __launch_bounds__(Policy::threads)
    histogram_kernel(const Sample* in, std::int64_t n, Counter* out, Params params, HistogramPlan plan) {
  extern __shared__ __align__(16) unsigned char histogram_smem[];
  constexpr int threads = Policy::threads;
  const int tid = static_cast<int>(threadIdx.x);
  const int bins = plan.bins;
  if (plan.cooperative) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * threads + tid; i < bins;
         i += static_cast<std::int64_t>(gridDim.x) * threads) {
      out[i] = 0;
    }
  }
  auto* counters = reinterpret_cast<unsigned*>(histogram_smem);
  const std::int64_t words = Shared ? histogram_counter_words(plan.algorithm, bins, plan.copies) : 0;
  if constexpr (Shared) histogram_zero(counters, words, tid, threads);
  // Range bins put their levels and lookup cells after the counters (ends with a barrier).
  const auto op = params.template prepare<Shared>(histogram_smem + words * 4, tid, threads, bins);
  if constexpr (!Params::is_range) {
    if constexpr (Shared) __syncthreads();
  }
  if (plan.cooperative && (!Shared || plan.sync_first)) arch::grid_sync();

  HistogramRun run;
  if constexpr (Shared) {
    const HistogramSlot slot = histogram_slot(counters, plan.algorithm, bins, plan.copies, tid);
    auto add = [&](unsigned b, unsigned count) {
      if (b < static_cast<unsigned>(bins)) slot.add(b, count);
    };
    std::int64_t done = 0;
    auto merge = [&] {
      for (int b = tid; b < bins; b += threads) {
        const std::uint64_t total = histogram_total(counters, plan.algorithm, bins, plan.copies, b);
        if (total != 0) histogram_global_add(out + b, total);
      }
    };
    with_bin_op(op, [&](const auto& bin_op) {
      histogram_sweep<Policy>(
          in, n,
          [&](Sample x, unsigned count) {
            if constexpr (Aggregate) {
              run.push(bin_op.valid(x) ? bin_op.bin(x) : ~0u, count, add);
            } else {
              if (bin_op.valid(x)) slot.add(bin_op.bin(x), count);
            }
          },
          [&] {
            // 32-bit shared counters: a block that sweeps more than flush_tiles tiles (2^31
            // samples) adds them to the output and starts again from zero.
            if (plan.sync_first && ++done == plan.flush_tiles) {
              done = 0;
              run.flush(add);
              __syncthreads();
              merge();
              __syncthreads();
              histogram_zero(counters, words, tid, threads);
              __syncthreads();
            }
          });
    });
    run.flush(add);
    __syncthreads();
    if (plan.cooperative && !plan.sync_first) arch::grid_sync();
    merge();
  } else {
    auto add = [&](unsigned b, unsigned count) {
      if (b < static_cast<unsigned>(bins)) arch::red_global_add(out + b, static_cast<Counter>(count));
    };
    histogram_sweep<Policy>(
        in, n,
        [&](Sample x, unsigned count) {
          if constexpr (Aggregate) {
            run.push(op.valid(x) ? op.bin(x) : ~0u, count, add);
          } else {
            if (op.valid(x)) arch::red_global_add(out + op.bin(x), static_cast<Counter>(count));
          }
        },
        [] {});
    run.flush(add);
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
