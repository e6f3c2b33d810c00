//! \file memory/pipeline.cuh
//! A multi-stage shared-memory pipeline: a ring of `Stages` tiles that a block fills with
//! asynchronous copies (copy_tile_async, copy_async) while it computes on the tiles that have
//! already landed. The mainloop of a stencil or a GEMM:
//! \code
//! using Tile = tilecraft::SharedMatrix<float, 1, 1024>;
//! __shared__ tilecraft::PipelineStorage<Tile, 3> storage;
//! tilecraft::Pipeline pipe(storage);
//! for (int k = 0; k < 2 && k < tiles; ++k) {        // prologue: Stages - 1 tiles in flight
//!   tilecraft::copy_tile_async<256>(pipe.producer_acquire(), src, 0, k * 1024);
//!   pipe.producer_commit();
//! }
//! for (int k = 0; k < tiles; ++k) {
//!   const Tile& t = pipe.consumer_wait();           // tile k landed, visible to every thread
//!   if (k + 2 < tiles) {                            // refill the stage released at k - 1
//!     tilecraft::copy_tile_async<256>(pipe.producer_acquire(), src, 0, (k + 2) * 1024);
//!     pipe.producer_commit();
//!   }
//!   use(t);
//!   pipe.consumer_release();
//! }
//! \endcode
//!
//! Contract. Every thread of the block makes the same calls in the same order (the counters
//! are per thread but stay uniform). Producer: producer_acquire() returns the next stage's tile,
//! the copies into it are issued, producer_commit() closes them as one group. Consumer:
//! consumer_wait() waits until the oldest uncompleted stage has landed and runs
//! `__syncthreads()`, so every thread sees every thread's copies, then returns that stage's
//! tile; consumer_release() hands the stage back. A stage is refilled only after it was
//! released: when producer_acquire() would hand out a stage released since the last barrier
//! (its readers may still be reading), it runs `__syncthreads()` first. In the loop above the
//! stage refilled at iteration k was released at k - 1, before consumer_wait's barrier, so no
//! extra barrier runs. With Stages == 1 nothing can be in flight while a tile is computed on:
//! the loop acquires, copies and commits tile k before it waits for it, and every acquire after
//! the first runs a barrier.
//!
//! The wait leaves the copies of every younger committed stage in flight (cp.async.wait_group
//! with the number of groups committed after the awaited one), so with Stages = S, S - 1 tiles
//! load while one is computed on. Below sm_80 or with TILECRAFT_DISABLE_CP_ASYNC the copies are
//! synchronous and the same kernel source gives the same results (the stages then only
//! buffer; latency is hidden by other resident blocks).
//!
//! Shared memory: sizeof(PipelineStorage<Tile, Stages>) = Stages * sizeof(Tile). Barriers: one
//! per consumer_wait, plus those producer_acquire needs (see above).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "copy_async.cuh"
#include "shared_tile.cuh"

namespace tilecraft {

//! The shared memory of a Pipeline: Stages tiles, 1 to 8 (a stage may be a struct of several
//! tiles, as a GEMM's A and B, trivially default constructible). Trivial, so it can be
//! `__shared__`, carved from dynamic shared memory (SharedCarve) or put in a union with other
//! temp storage.
template <class Tile, int Stages>
struct PipelineStorage {
  static_assert(std::is_trivially_default_constructible_v<Tile>,
                "PipelineStorage: Tile (a SharedMatrix, or a struct of them) must be trivially default constructible "
                "to live in __shared__ memory");
  static_assert(Stages >= 1 && Stages <= 8, "PipelineStorage: Stages must be between 1 and 8");
  //! The stage tiles, in ring order.
  Tile stage[static_cast<std::size_t>(Stages)];
};

#if defined(__CUDACC__)

//! A ring of Stages tiles filled asynchronously (see the file comment for the protocol).
//! Holds four counters in registers (one only for device assertions); construct one per block,
//! in every thread.
template <class Tile, int Stages>
class Pipeline {
 public:
  //! The number of stages.
  static constexpr int stages = Stages;
  //! The stage tile type.
  using tile_type = Tile;

  //! A pipeline over `storage`, with no stage in flight.
  TILECRAFT_DEVICE explicit Pipeline(PipelineStorage<Tile, Stages>& storage) : storage_(storage) {}

  //! The tile of the next stage to fill. Runs `__syncthreads()` when that stage was released
  //! since the last barrier. Every thread calls it; at most Stages stages may be acquired and
  //! not yet released.
  TILECRAFT_DEVICE Tile& producer_acquire() {
    TILECRAFT_ASSERT(head_ - tail_ < Stages && "Pipeline: producer_acquire with every stage in use");
    // The stage's previous occupant was stage head - Stages; its readers are done once a
    // barrier followed its release.
    if (head_ - Stages >= released_before_barrier_) {
      __syncthreads();
      released_before_barrier_ = tail_;
    }
    return storage_.stage[head_ % Stages];
  }

  //! Closes the copies issued since the last commit as the next stage: once per acquired stage,
  //! in every thread, also in threads that issued no copy into it.
  TILECRAFT_DEVICE void producer_commit() {
    copy_async_commit();
    ++head_;
  }

  //! Waits until the oldest unreleased stage has landed, runs `__syncthreads()`, and returns
  //! its tile (which the consumer may also write, e.g. to patch boundary elements, with its own
  //! barrier before others read them). The copies of the stages committed after it stay in
  //! flight.
  TILECRAFT_DEVICE Tile& consumer_wait() {
    TILECRAFT_ASSERT(waited_ == tail_ && "Pipeline: consumer_wait twice without consumer_release");
    TILECRAFT_ASSERT(tail_ < head_ && "Pipeline: consumer_wait with no stage committed");
    wait_leaving(head_ - tail_ - 1);
    __syncthreads();
    released_before_barrier_ = tail_;
    waited_ = tail_ + 1;
    return storage_.stage[tail_ % Stages];
  }

  //! Hands the stage consumer_wait returned back to the producer.
  TILECRAFT_DEVICE void consumer_release() {
    TILECRAFT_ASSERT(waited_ == tail_ + 1 && "Pipeline: consumer_release without consumer_wait");
    ++tail_;
  }

  //! Waits for every copy still in flight and runs `__syncthreads()`: call it before the
  //! pipeline's shared memory is reused for something else, or before the block exits with
  //! copies outstanding.
  TILECRAFT_DEVICE void drain() {
    copy_async_wait_all();
    __syncthreads();
    released_before_barrier_ = tail_;
  }

 private:
  // cp.async.wait_group takes its count as an immediate: dispatch the run-time count (uniform
  // across the block, 0 ... Stages - 1) to the instantiations.
  template <int N = 0>
  TILECRAFT_DEVICE static void wait_leaving(int pending) {
    if constexpr (N + 1 < Stages) {
      if (pending > N) {
        wait_leaving<N + 1>(pending);
        return;
      }
    }
    copy_async_wait<N>();
  }

  PipelineStorage<Tile, Stages>& storage_;
  int head_ = 0;                     // stages committed
  int tail_ = 0;                     // stages released
  int waited_ = 0;                   // tail_ + 1 between consumer_wait and consumer_release
  int released_before_barrier_ = 0;  // stages released before the last barrier this pipeline ran
};

//! Class template argument deduction: `tilecraft::Pipeline pipe(storage);`.
template <class Tile, int Stages>
Pipeline(PipelineStorage<Tile, Stages>&) -> Pipeline<Tile, Stages>;

#endif  // __CUDACC__

}  // namespace tilecraft
