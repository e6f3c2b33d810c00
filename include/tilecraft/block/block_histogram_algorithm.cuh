//! \file block/block_histogram_algorithm.cuh
//! The layouts block_histogram (and the device histograms' policies) can give their shared
//! counters: BlockHistogramAlgorithm. Included by block/block_histogram.cuh and
//! device/histogram.cuh; on its own for code that only names a layout (a policy, a trait).
#pragma once

#include "../config.cuh"

namespace tilecraft {

//! How block_histogram privatizes its counters in shared memory. Same-address atomics
//! serialize and atomics of one warp instruction that hit one bank in different words take one
//! pass each, so the layout decides what skewed and what uniform data cost. The algorithm and the
//! copies are BlockHistogramStorage's third and fourth parameters:
//! \code
//! // 64 bins in per-lane counters, two copies: even warps count into one, odd warps the other.
//! __shared__ tilecraft::BlockHistogramStorage<64, 256, tilecraft::BlockHistogramAlgorithm::lanes, 2> hist;
//! tilecraft::block_histogram_init(hist);
//! tilecraft::block_histogram_add(hist, i % 64);
//! \endcode
enum class BlockHistogramAlgorithm {
  //! One copy of the Bins counters for the whole block (Bins words). Counter b sits in bank
  //! b % 32: a warp's 32 random bins need ~3.5 passes, equal bins in one warp serialize, so
  //! equal neighbouring items of a thread are combined into one atomicAdd first.
  block,
  //! Copies sub-histograms of Bins counters (Copies x Bins words); warp w counts into copy
  //! w % Copies, so fewer warps contend for one address. Equal neighbouring items of a thread
  //! are combined as for `block`.
  warps,
  //! Every lane of a warp owns a column of counters: counter (copy, bin, lane) is word
  //! (copy x Bins + bin) x 32 + lane, in bank `lane`, so each warp instruction's atomics are
  //! conflict-free and never share an address, whatever the data (Copies x Bins x 32 words:
  //! for small Bins). Warp w counts into copy w % Copies.
  lanes,
};

}  // namespace tilecraft
