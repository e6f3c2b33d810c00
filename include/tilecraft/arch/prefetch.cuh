//! \file arch/prefetch.cuh
//! Raw PTX wrappers: `prefetch.global.L2`, a hint that brings the 128-byte line holding an
//! address into L2 without a register, a wait or an L1 line, and (sm_90) `cp.async.bulk.prefetch.L2`,
//! the same for a whole range by one instruction.
//!
//! A single-pass select or scan waits for its tile's prefix with nothing in flight (about a third
//! of select_if's time on an H200, benchmarks/TUNING.md); prefetching the tile a block that starts
//! later will take keeps DRAM reading through that wait: select_if of 2^28 floats ran 8% faster
//! with it, scans of 2^28 items 5-15%.
#pragma once

#include <cstddef>
#include <cstdint>

#include <nv/target>

#include "../config.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! Asks L2 to fetch the line holding `p`, an address in global memory (any alignment). A hint:
//! nothing waits for it and it writes no register. The PTX manual does not promise that a
//! prefetch of an unmapped address is harmless, so give it addresses inside an allocation (the
//! scan and select prefetch only tiles wholly inside their input).
TILECRAFT_DEVICE void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(__cvta_generic_to_global(p)));
}

//! Prefetches every line of [p, p + Bytes) into L2, the calling block's Threads threads (this one
//! `thread`) taking every Threads-th line. A loop of a fixed count: the same loop of a run-time
//! count, inlined into a kernel that holds many values, made the compiler schedule that kernel
//! very differently (a scan tile went from 40 to 180 registers a thread).
template <int Threads, std::size_t Bytes>
TILECRAFT_DEVICE void prefetch_l2_block(const void* p, int thread) {
  static_assert(Threads >= 1 && Threads <= 1024,
                "prefetch_l2_block: Threads must be a block's thread count (1 to 1024)");
  static_assert(Bytes > 0, "prefetch_l2_block: Bytes must be positive");
  constexpr int lines = static_cast<int>((Bytes + 254) / 128);  // (the most Bytes can span from any start)
  const auto* first = static_cast<const unsigned char*>(p) - reinterpret_cast<std::uintptr_t>(p) % 128;
  const auto* end = static_cast<const unsigned char*>(p) + Bytes;
#pragma unroll
  for (int i = 0; i < (lines + Threads - 1) / Threads; ++i) {
    const unsigned char* line = first + static_cast<std::size_t>(thread + i * Threads) * 128;
    if (thread + i * Threads < lines && line < end) prefetch_l2(line);
  }
}

//! Prefetches [p, p + Bytes) into L2 for the calling block. On sm_90 and later, where `p` is 16-byte
//! aligned and Bytes a multiple of 16, by one `cp.async.bulk.prefetch.L2` that `thread` 0 issues
//! (the others do nothing); otherwise as prefetch_l2_block (every thread its share of the lines).
//! A hint, as prefetch_l2: the range must lie inside an allocation. H200, a copy of 2^28 floats
//! in tiles of 32 KiB, each block prefetching the tile one SM's worth of blocks ahead: 523 us
//! with one bulk prefetch a tile, 570 with 256 line prefetches, 530 with none (memcpy 505);
//! select_if of 2^28 floats 1% faster with it (benchmarks/TUNING.md, "One bulk prefetch a tile").
//! \code
//! // Blocks of 128 threads, a tile of 8192 floats each: bring the tile of the block 132 tiles
//! // later into L2 (only where it lies inside the rows * cols floats of `in`).
//! const std::int64_t later = (blockIdx.x + 132ll) * 8192;
//! if (later + 8192 <= static_cast<std::int64_t>(rows) * cols) {
//!   tilecraft::arch::prefetch_l2_bulk<128, 8192 * sizeof(float)>(in + later, threadIdx.x);
//! }
//! \endcode
template <int Threads, std::size_t Bytes>
TILECRAFT_DEVICE void prefetch_l2_bulk(const void* p, int thread) {
  static_assert(Threads >= 1 && Threads <= 1024,
                "prefetch_l2_bulk: Threads must be a block's thread count (1 to 1024)");
  static_assert(Bytes > 0 && Bytes <= 0xffffffffu, "prefetch_l2_bulk: Bytes must be positive and fit 32 bits");
  if constexpr (Bytes % 16 == 0) {
    NV_IF_TARGET(NV_PROVIDES_SM_90, (if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
                   if (thread == 0) {
                     asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(__cvta_generic_to_global(p)),
                                  "r"(static_cast<std::uint32_t>(Bytes))
                                  : "memory");
                   }
                   return;
                 }))
  }
  prefetch_l2_block<Threads, Bytes>(p, thread);
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
