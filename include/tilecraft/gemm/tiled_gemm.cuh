//! \file gemm/tiled_gemm.cuh
//! The block level of the GEMM: one block computes one TM x TN tile of C = op(A) * op(B),
//! streaming K in steps of TK through a multi-stage pipeline of shared A and B tiles (filled
//! with cp.async on sm_80+; below, a register double buffer over two of the stages), each
//! thread accumulating an RM x RN register block, then hands every accumulator to an epilogue
//! functor. Callable inside a user's kernel (tiled_gemm) and the building block of the
//! device-wide tilecraft::gemm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <nv/target>

#include "../config.cuh"
#include "../memory/copy_async.cuh"
#include "../memory/matrix_ref.cuh"
#include "../memory/pipeline.cuh"
#include "../util/thread.cuh"
#include "detail/operand_fill.cuh"
#include "epilogue.cuh"
#include "gemm_shape.cuh"
#include "warp_mma.cuh"
#include "warp_mma_16bit.cuh"
#include "warp_mma_tf32.cuh"

namespace tilecraft {

#if defined(__CUDACC__)
namespace detail {
// A C element as the epilogue's float, and back, rounded to nearest (16-bit C); the identity
// for float and double.
template <class TC>
TILECRAFT_DEVICE auto to_float(const TC& x) {
  if constexpr (std::is_same_v<TC, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<TC, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return x;
  }
}
template <class TC, class V>
TILECRAFT_DEVICE TC from_float(V x) {
  if constexpr (std::is_same_v<TC, __half>) {
    return __float2half_rn(x);
  } else if constexpr (std::is_same_v<TC, __nv_bfloat16>) {
    return __float2bfloat16_rn(x);
  } else {
    return x;
  }
}
}  // namespace detail
#endif

//! A block-tiled GEMM configuration and its block-level algorithm. TM x TN: the C tile of one
//! block; RegBlockT: each thread's RegBlock<RM, RN>; TK: the K step; LanesM: rows of a warp's
//! lane grid; Stages: pipeline depth (below sm_80, where the mainloop is a register double
//! buffer, it uses two of the stages; smem_bytes still counts all of them); T: the element type
//! of A and B: float or double (C and the accumulators the same), or __half or __nv_bfloat16
//! (the accumulators float: output_type; C float or T); Math: how the products are computed,
//! GemmMath::simt (FMAs, the default for float and double), on the tensor cores for float
//! GemmMath::tf32 or tf32x3 (WarpMmaTf32 on the same warp tiles: a thread's RM x RN
//! accumulators become its share of the warp tile's 16 x 8 MMA tiles), and for the 16-bit
//! types GemmMath::mma16 (their default and only math: WarpMma16, m16n8k16 MMAs fed by
//! ldmatrix; TK a multiple of 16). Every rule between them is checked by GemmShape.
//! The block must have exactly `threads` threads (one-dimensional or not: the rank is
//! threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)).
//! Shared memory: sizeof(TempStorage) = smem_bytes (above 48 KiB it must be dynamic shared
//! memory, opted in with opt_in_dynamic_smem).
//! \code
//! using Gemm = tilecraft::TiledGemm<128, 128, tilecraft::RegBlock<8, 8>>;
//! static_assert(Gemm::threads == 256 && Gemm::smem_bytes <= 48 * 1024);
//! using Dgemm = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<4, 4>, 8, 4, 3, double>;
//! static_assert(Dgemm::threads == 256 && Dgemm::smem_bytes <= 48 * 1024);
//! // FP32 accuracy from the tensor cores (three TF32 MMAs per product), 4 warps of 64 x 64:
//! using Fast = tilecraft::TiledGemm<128, 128, tilecraft::RegBlock<16, 8>, 16, 4, 3, float,
//!                                   tilecraft::GemmMath::tf32x3>;
//! static_assert(Fast::threads == 128);
//! // bfloat16 A and B, float C, on the tensor cores (GemmMath::mma16), 4 warps of 64 x 64:
//! using Half = tilecraft::TiledGemm<128, 128, tilecraft::RegBlock<16, 8>, 32, 4, 3, __nv_bfloat16>;
//! static_assert(Half::threads == 128 && std::is_same_v<Half::output_type, float>);
//! \endcode
template <int TM, int TN, class RegBlockT, int TK = 8, int LanesM = 4, int Stages = 3, class T = float,
          GemmMath Math = default_gemm_math_v<T>>
struct TiledGemm {
  //! The configuration's shapes and maps.
  using shape = GemmShape<TM, TN, RegBlockT, TK, LanesM, Stages, T, Math>;
  //! The element type of A and B.
  using element_type = T;
  //! The type of the accumulators and of the epilogue's values: T, or float for __half and
  //! __nv_bfloat16.
  using output_type = gemm_output_t<T>;
  //! Whether C may hold TC: output_type always; with 16-bit operands, T too (the epilogue's
  //! float result rounded to nearest into C, and C's old value read as float).
  template <class TC>
  static constexpr bool c_type_ok = std::is_same_v<TC, output_type> || (shape::mma16_math && std::is_same_v<TC, T>);
  //! Threads per block.
  static constexpr int threads = shape::threads;
  //! sizeof(TempStorage).
  static constexpr std::size_t smem_bytes = shape::smem_bytes;
  //! The shared memory a block needs: Stages pairs of (padded) A and B tiles. Trivial, so it
  //! can be `__shared__`, carved from dynamic shared memory or put in a union. It names its
  //! configuration, so tiled_gemm(storage, a, b, c, m0, n0) needs no template arguments.
  struct TempStorage : PipelineStorage<typename shape::Stage, shape::stages> {
    //! The configuration this storage is for.
    using tiled_gemm_type = TiledGemm;
  };

#if defined(__CUDACC__)
  //! The warp level: WarpMma (FMAs) or, with tensor-core math, WarpMmaTf32 (float) or WarpMma16
  //! (16-bit operands) on the same warp tiles.
  using warp_mma = std::conditional_t<
      shape::mma16_math, WarpMma16<typename shape::TileA, typename shape::TileB, shape::warp_m, shape::warp_n>,
      std::conditional_t<shape::tensor_math,
                         WarpMmaTf32<typename shape::TileA, typename shape::TileB, shape::warp_m, shape::warp_n, Math>,
                         WarpMma<shape>>>;
  //! Whether the operands may be filled in 16-byte vectors: every operand whose fill moves
  //! vectors (all but a K-major tile of a K-contiguous operand, i.e. all with tensor-core math)
  //! is 16-byte aligned with a leading dimension that is a multiple of shape::vector_elems
  //! (4 floats, 2 doubles, 8 16-bit elements).
  template <class TA, Order OA, class TB, Order OB>
  TILECRAFT_HOST_DEVICE static bool vector_fill_ok(const MatrixRef<TA, OA>& a, const MatrixRef<TB, OB>& b) {
    const bool a_vector = OA == Order::col_major || shape::tensor_math;
    const bool b_vector = OB == Order::row_major || shape::tensor_math;
    return (!a_vector || rows_vector_aligned(a)) && (!b_vector || rows_vector_aligned(b));
  }

  //! Computes the tile of C at (m0, n0) and stores it through `epi` (see tiled_gemm(), which
  //! chooses VectorFill and AnyOrigin and is the entry to call). VectorFill: fill in 16-byte
  //! vectors every operand whose fill moves vectors (see vector_fill_ok: all but a K-major tile
  //! of a K-contiguous operand, so all with tensor-core math), which needs vector_fill_ok(a, b)
  //! and m0, n0 multiples of shape::vector_elems; otherwise element by element. AnyOrigin: m0
  //! and n0 may be negative (elements outside C are neither read nor written, as past the far
  //! edges); without it they must be >= 0, and the fills spend no register on the near edges.
  //! Preconditions (checked with TILECRAFT_ENABLE_DEVICE_ASSERTIONS): a is M x K, b K x N, c
  //! M x N, except that a may hold more rows and b more columns than c (read and multiplied,
  //! never stored: the launcher's packed operands, padded to whole tiles with zeros, so that no
  //! tile fills along its edge); m0, n0 >= 0 unless AnyOrigin. Each matrix is read (written)
  //! only inside its own rows and columns whatever the shapes: where b has fewer rows than a
  //! has columns, the product runs over K = b.rows. Every thread of the block (exactly
  //! `threads`) calls it with the same arguments; barriers and shared memory as tiled_gemm()'s.
  template <bool VectorFill, bool AnyOrigin = false, Order OA, Order OB, class TC, Order OC, class Epilogue>
  TILECRAFT_DEVICE static void run(TempStorage& storage, MatrixRef<const T, OA> a, MatrixRef<const T, OB> b,
                                   MatrixRef<TC, OC> c, std::int64_t m0, std::int64_t n0, const Epilogue& epi) {
    static_assert(c_type_ok<TC>, "TiledGemm::run: C must hold output_type (or T for 16-bit operands)");
    const int thread = static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
    TILECRAFT_ASSERT(blockDim.x * blockDim.y * blockDim.z == threads &&
                     "tiled_gemm: blockDim.x * blockDim.y * blockDim.z must equal TiledGemm::threads");
    TILECRAFT_ASSERT(a.cols == b.rows && a.rows >= c.rows && b.cols >= c.cols &&
                     "tiled_gemm: a must be M x K, b K x N and c M x N (a may hold more rows, b more columns)");
    TILECRAFT_ASSERT((AnyOrigin || (m0 >= 0 && n0 >= 0)) &&
                     "TiledGemm::run: origins must be >= 0 unless AnyOrigin (tiled_gemm() takes any)");
    TILECRAFT_ASSERT(
        (!VectorFill || (vector_fill_ok(a, b) && m0 % shape::vector_elems == 0 && n0 % shape::vector_elems == 0)) &&
        "tiled_gemm: the vector fill needs aligned operands and origins that are multiples of "
        "16 / sizeof(T)");
    const warp_mma mma = make_warp_mma(thread / warp_threads);
    typename warp_mma::Accumulators acc = {};
    accumulate<VectorFill, AnyOrigin>(storage, mma, a, b, m0, n0, thread, acc);
    store<AnyOrigin>(mma, acc, c, m0, n0, epi);
  }

 private:
  // Warp `warp`'s view of the block tile (SIMT: through the lane map; tensor cores: its warp
  // tile's origin).
  TILECRAFT_DEVICE static warp_mma make_warp_mma(int warp) {
    if constexpr (shape::tensor_math) {
      return warp_mma((warp / shape::warps_n) * shape::warp_m, (warp % shape::warps_n) * shape::warp_n);
    } else {
      return warp_mma(warp, lane_id());
    }
  }
  // With tensor-core math, an operand stored with K contiguous (A row-major, B column-major)
  // fills its stage as an L x TK tile (shape::TileAk, TileBk: 16-byte copies along K, where a
  // K-major tile would take single-element copies), which the warp level reads transposed.
  template <Order OA>
  static constexpr bool a_k_inner = (shape::tensor_math && OA == Order::row_major);
  template <Order OB>
  static constexpr bool b_k_inner = (shape::tensor_math && OB == Order::col_major);
  // The stage's tile that A (B) fills.
  template <Order OA, class S>
  TILECRAFT_DEVICE static auto& tile_a(S& stage) {
    if constexpr (a_k_inner<OA>) {
      return stage.a_k;
    } else {
      return stage.a;
    }
  }
  template <Order OB, class S>
  TILECRAFT_DEVICE static auto& tile_b(S& stage) {
    if constexpr (b_k_inner<OB>) {
      return stage.b_k;
    } else {
      return stage.b;
    }
  }

  // What the warp level reads of A (B): the K-major tile, or the L x TK one transposed.
  template <Order OA>
  TILECRAFT_DEVICE static decltype(auto) view_a(const typename shape::Stage& stage) {
    if constexpr (a_k_inner<OA>) {
      return transposed(tile_a<OA>(stage));
    } else {
      return tile_a<OA>(stage);
    }
  }
  template <Order OB>
  TILECRAFT_DEVICE static decltype(auto) view_b(const typename shape::Stage& stage) {
    if constexpr (b_k_inner<OB>) {
      return transposed(tile_b<OB>(stage));
    } else {
      return tile_b<OB>(stage);
    }
  }

  // acc += the products of one stage.
  template <Order OA, Order OB, class Acc>
  TILECRAFT_DEVICE static void multiply(const warp_mma& mma, const typename shape::Stage& stage, Acc& acc) {
    if constexpr (shape::tensor_math) {
      mma.multiply(view_a<OA>(stage), view_b<OB>(stage), acc);
    } else {
      mma.multiply(stage, acc);
    }
  }

  // Whether the mainloop overlaps each stage boundary with the last FMAs of the stage before.
  // Where a thread holds at least 32 accumulators (FMAs enough in a k step to cover the next
  // stage's fragment loads), and either an operand is scattered (row-major A or column-major
  // B: many single-element copies to issue after each barrier) or the thread's block is 8 x 8
  // with a K step of at most 16. With both operands filled in vectors it cost 4 x 8 blocks 11%
  // where K is split behind whole waves, and the K step of 32 and the 16 x 8 blocks of the
  // vector policies 2 to 3%; the 8 x 8 blocks of K step 16 gained up to 6% (64 x 8192 x 8192).
  // The same rule for float and double (measured: benchmarks/TUNING.md).
  // (FMAs only: the tensor-core warp level loads a whole stage's fragments per k step.)
  template <Order OA, Order OB>
  static constexpr bool overlap_stages =
      !shape::tensor_math && RegBlockT::rows * RegBlockT::cols >= 32 &&
      ((OA == Order::row_major || OB == Order::col_major) || (TK <= 16 && RegBlockT::rows * RegBlockT::cols == 64));

  template <bool VectorFill, bool AnyOrigin, Order OA, Order OB, class Acc>
  TILECRAFT_DEVICE static void accumulate(TempStorage& storage, const warp_mma& mma, MatrixRef<const T, OA> a,
                                          MatrixRef<const T, OB> b, std::int64_t m0, std::int64_t n0, int thread,
                                          Acc& acc) {
    // A (M x K) is K-contiguous when row-major, B (K x N) when column-major: those are
    // scattered into their K-major tiles element by element, the others fill by rows.
    // (With tensor-core math those fill L x TK tiles along K instead: a_k_inner.)
    using detail::FillKind;
    constexpr bool a_scatter = OA == Order::row_major;
    constexpr bool b_scatter = OB == Order::col_major;
    constexpr bool a_k = a_k_inner<OA>;
    constexpr bool b_k = b_k_inner<OB>;
    constexpr int vector = shape::vector_elems;
    using FillA = detail::OperandFill<shape, std::conditional_t<a_k, typename shape::TileAk, typename shape::TileA>,
                                      a_k         ? FillKind::k_rows
                                      : a_scatter ? FillKind::scatter
                                                  : FillKind::rows,
                                      (VectorFill && (a_k || !a_scatter)) ? vector : 1, AnyOrigin>;
    using FillB = detail::OperandFill<shape, std::conditional_t<b_k, typename shape::TileBk, typename shape::TileB>,
                                      b_k         ? FillKind::k_rows
                                      : b_scatter ? FillKind::scatter
                                                  : FillKind::rows,
                                      (VectorFill && (b_k || !b_scatter)) ? vector : 1, AnyOrigin>;
    // K: a.cols, which b.rows equals by the rules; the smaller of the two keeps a broken rule
    // inside both operands (one extent for both fills, as the mainloop's edge steps assume).
    const std::int64_t k_count = b.rows < a.cols ? b.rows : a.cols;
    const FillA fill_a(a.data, a.ld, a.rows, k_count, m0, thread);
    const FillB fill_b(b.data, b.ld, b.cols, k_count, n0, thread);
    const std::int64_t steps = (k_count + TK - 1) / TK;
    // cp.async on sm_80+; below (or with TILECRAFT_DISABLE_CP_ASYNC) a register double buffer.
    if constexpr (cp_async_disabled) {
      accumulate_staged<OA, OB>(storage, mma, fill_a, fill_b, steps, acc);
    } else {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (accumulate_async<OA, OB>(storage, mma, fill_a, fill_b, steps, acc);),
                        (accumulate_staged<OA, OB>(storage, mma, fill_a, fill_b, steps, acc);))
    }
  }

  // The mainloop of sm_80+: a Stages-deep cp.async ring, Stages - 1 K steps in flight while one
  // is computed on (the protocol of memory/pipeline.cuh, written out so that the refill after
  // each barrier costs few instructions: an FP32 SIMT GEMM is issue-bound, and a warp's copies
  // for the next stage issue between a barrier and its first FMAs). Every step commits one
  // group, empty past the last step, so the wait's count is the constant Stages - 2; stage
  // slots advance by a compare, not a modulo; the copies of whole steps (the block-uniform
  // test made once) take a source pointer advanced by a constant and a 32-bit shared address.
  template <Order OA, Order OB, class FillA, class FillB, class Acc>
  TILECRAFT_DEVICE static void accumulate_async(TempStorage& storage, const warp_mma& mma, const FillA& fill_a,
                                                const FillB& fill_b, std::int64_t steps, Acc& acc) {
    constexpr std::uint32_t stage_bytes = sizeof(typename shape::Stage);
    const std::uint32_t dst_a = fill_a.destination(tile_a<OA>(storage.stage[0]));
    const std::uint32_t dst_b = fill_b.destination(tile_b<OB>(storage.stage[0]));
    const T* src_a = fill_a.source();
    const T* src_b = fill_b.source();
    const std::int64_t whole_a = fill_a.whole_steps(), whole_b = fill_b.whole_steps();
    const std::int64_t whole = whole_a < whole_b ? whole_a : whole_b;
    // Issues K step `next` (the steps are issued in order) into stage `slot`, a stage no thread
    // reads any more, and commits it as one group. (Each branch advances the sources itself:
    // one advance after the branches led ptxas to an allocation with 91 FFMAs a K step reading
    // three operands from one register bank in GemmPolicySkinny, 4% slower; TUNING.md.)
    auto issue = [&](std::int64_t next, int slot) {
      const std::uint32_t offset = static_cast<std::uint32_t>(slot) * stage_bytes;
      if (next < whole) {
        fill_a.issue_whole(dst_a + offset, src_a);
        fill_b.issue_whole(dst_b + offset, src_b);
        src_a += fill_a.step_stride();
        src_b += fill_b.step_stride();
      } else if (next < steps) {
        const std::int64_t k_left = fill_a.k_count() - next * TK;  // (both fills' K extent)
        fill_a.issue_edge(dst_a + offset, src_a, k_left);
        fill_b.issue_edge(dst_b + offset, src_b, k_left);
        src_a += fill_a.step_stride();
        src_b += fill_b.step_stride();
      }
      copy_async_commit();
    };
    // Waits for the group of the oldest step not yet computed on (Stages - 2 younger groups stay
    // in flight), then a barrier: every thread's copies of it are visible, and every thread is
    // done with the step before, whose stage the issue() after it refills.
    auto wait = [] {
      copy_async_wait<Stages - 2>();
      __syncthreads();
    };
    auto advance = [](int slot) { return slot + 1 == Stages ? 0 : slot + 1; };
#pragma unroll 1
    for (int s = 0; s < Stages - 1; ++s) issue(s, s);
    int read = 0;  // the stage of the step computed on
    if constexpr (!overlap_stages<OA, OB>) {
      int write = Stages - 1;  // the stage of step - 1
#pragma unroll 1
      for (std::int64_t step = 0; step < steps; ++step) {
        wait();
        issue(step + Stages - 1, write);
        multiply<OA, OB>(mma, storage.stage[read], acc);
        write = read;
        read = advance(read);
      }
    } else if (steps > 0) {
      // The barrier, the refill and the next stage's first fragment loads come before the
      // current stage's last FMAs, which then cover the loads' latency (fragments are
      // double-buffered in registers). See overlap_stages for where that pays.
      using Mma = WarpMma<shape>;
      T frag_a[2][Mma::rm];
      T frag_b[2][Mma::rn];
      wait();
      issue(Stages - 1, Stages - 1);
      mma.load_a(storage.stage[0].a, 0, frag_a[0]);
      mma.load_b(storage.stage[0].b, 0, frag_b[0]);
#pragma unroll 1
      for (std::int64_t step = 0; step < steps; ++step) {
        const typename shape::Stage& stage = storage.stage[read];
#pragma unroll
        for (int k = 0; k < TK; ++k) {
          const int nk = (k + 1) % 2;
          if (k + 1 < TK) {
            mma.load_a(stage.a, k + 1, frag_a[nk]);
            mma.load_b(stage.b, k + 1, frag_b[nk]);
          } else if (step + 1 < steps) {
            // Every fragment of this stage is in registers: after the barrier it is refilled.
            wait();
            issue(step + Stages, read);
            read = advance(read);
            mma.load_a(storage.stage[read].a, 0, frag_a[nk]);
            mma.load_b(storage.stage[read].b, 0, frag_b[nk]);
          }
          thread_mma(acc, frag_a[k % 2], frag_b[k % 2]);
        }
        if constexpr (TK % 2 == 1) {  // the next stage's first fragments went to slot 1
#pragma unroll
          for (std::size_t i = 0; i < Mma::rm; ++i) frag_a[0][i] = frag_a[1][i];
#pragma unroll
          for (std::size_t j = 0; j < Mma::rn; ++j) frag_b[0][j] = frag_b[1][j];
        }
      }
    }
    // Every real group was waited for above (the rest are empty). The storage may be reused
    // (by the next tile of a persistent loop, or the caller) only once every thread has
    // finished reading it.
    __syncthreads();
  }

  // The mainloop below sm_80, where copies cannot run asynchronously: a register double buffer
  // over the first two stages. Each thread loads its share of step s + 1 into registers before
  // the FMAs of step s, which cover the loads' latency, and stores it into the other stage
  // after them; one barrier per step then publishes the stage just stored and frees the one
  // just read. (A synchronous copy into shared memory would stall each warp on every load.)
  template <Order OA, Order OB, class FillA, class FillB, class Acc>
  TILECRAFT_DEVICE static void accumulate_staged(TempStorage& storage, const warp_mma& mma, const FillA& fill_a,
                                                 const FillB& fill_b, std::int64_t steps, Acc& acc) {
    if (steps > 0) {
      typename FillA::Staged staged_a;
      typename FillB::Staged staged_b;
      fill_a.load(staged_a, 0);
      fill_b.load(staged_b, 0);
      fill_a.store(tile_a<OA>(storage.stage[0]), staged_a);
      fill_b.store(tile_b<OB>(storage.stage[0]), staged_b);
      __syncthreads();
#pragma unroll 1
      for (std::int64_t step = 0; step < steps; ++step) {
        const bool more = step + 1 < steps;
        if (more) {
          fill_a.load(staged_a, (step + 1) * TK);
          fill_b.load(staged_b, (step + 1) * TK);
        }
        multiply<OA, OB>(mma, storage.stage[step % 2], acc);
        if (more) {
          fill_a.store(tile_a<OA>(storage.stage[(step + 1) % 2]), staged_a);
          fill_b.store(tile_b<OB>(storage.stage[(step + 1) % 2]), staged_b);
        }
        // Publishes stage (step + 1) % 2 and frees stage step % 2 for step + 2. After the last
        // step it is the final barrier: the storage may then be reused.
        __syncthreads();
      }
    } else {
      __syncthreads();  // the same barrier count as the cp.async mainloop: one at the end
    }
  }

  template <bool AnyOrigin, class TC, Order OC, class Acc, class Epilogue>
  TILECRAFT_DEVICE static void store(const warp_mma& mma, const Acc& acc, MatrixRef<TC, OC> c, std::int64_t m0,
                                     std::int64_t n0, const Epilogue& epi) {
    if constexpr (shape::tensor_math) {
      store_tensor<AnyOrigin>(mma, acc, c, m0, n0, epi);
    } else {
      store_simt<AnyOrigin>(mma, acc, c, m0, n0, epi);
    }
  }

  // Tensor-core accumulators: acc[i][j][2h + e] is C (row(i, 2h), col(j, 0) + e), so each lane
  // holds pairs of adjacent columns; row-major C takes a pair in one 8-byte store (4 bytes for a
  // 16-bit C) when aligned. The epilogue works in float; a 16-bit C is read into float and
  // written rounded to nearest.
  template <bool AnyOrigin, class TC, Order OC, class Acc, class Epilogue>
  TILECRAFT_DEVICE static void store_tensor(const warp_mma& mma, const Acc& acc, MatrixRef<TC, OC> c, std::int64_t m0,
                                            std::int64_t n0, const Epilogue& epi) {
    const bool reads = epi.reads_c();
    constexpr std::uintptr_t pair_bytes = 2 * sizeof(TC);
    const bool pair_store = OC == Order::row_major && reinterpret_cast<std::uintptr_t>(c.data) % pair_bytes == 0 &&
                            c.ld % 2 == 0 && n0 % 2 == 0;
#pragma unroll
    for (int i = 0; i < warp_mma::tiles_m; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::int64_t r = m0 + mma.row(i, 2 * h);
        if (r >= c.rows) continue;
        if constexpr (AnyOrigin) {
          if (r < 0) continue;
        }
#pragma unroll
        for (int j = 0; j < warp_mma::tiles_n; ++j) {
          const std::int64_t c0 = n0 + mma.col(j, 0);
          const float* const v = &acc[i][j][2 * h];
          if constexpr (OC == Order::row_major) {
            if (pair_store && (!AnyOrigin || c0 >= 0) && c0 + 1 < c.cols) {
              if constexpr (std::is_same_v<TC, float>) {
                float2* const p = reinterpret_cast<float2*>(c.data + r * c.ld + c0);
                const float2 old = reads ? *p : float2{0.0f, 0.0f};
                // (The epilogue may return a wider type, converted once: GemmEpilogue.)
                *p = float2{static_cast<float>(epi(v[0], old.x, r, c0)),
                            static_cast<float>(epi(v[1], old.y, r, c0 + 1))};
              } else {
                // One 4-byte word holds the pair (p is 4-byte aligned: pair_store).
                auto* const p = reinterpret_cast<std::uint32_t*>(c.data + r * c.ld + c0);
                TC pair[2];
                if (reads) std::memcpy(pair, p, sizeof pair);
                pair[0] = detail::from_float<TC>(epi(v[0], reads ? detail::to_float(pair[0]) : 0.0f, r, c0));
                pair[1] = detail::from_float<TC>(epi(v[1], reads ? detail::to_float(pair[1]) : 0.0f, r, c0 + 1));
                std::uint32_t word;
                std::memcpy(&word, pair, sizeof word);
                *p = word;
              }
              continue;
            }
          }
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            if (c0 + e < c.cols && (!AnyOrigin || c0 + e >= 0)) {
              TC& dst = c(r, c0 + e);
              dst = detail::from_float<TC>(epi(v[e], reads ? detail::to_float(dst) : 0.0f, r, c0 + e));
            }
          }
        }
      }
    }
  }

  template <bool AnyOrigin, Order OC, class Acc, class Epilogue>
  TILECRAFT_DEVICE static void store_simt(const warp_mma& mma, const Acc& acc, MatrixRef<output_type, OC> c,
                                          std::int64_t m0, std::int64_t n0, const Epilogue& epi) {
    using Rb = typename shape::reg_block;
    constexpr int vn = shape::vector_n;
    // A whole 16-byte vector of columns per group (4 floats, 2 doubles).
    constexpr bool whole_vectors = vn == shape::vector_elems;
    const bool reads = epi.reads_c();
    // Row-major C: each group of vector_n columns is one 16-byte store when aligned (a
    // quarter-warp then writes 128 contiguous bytes).
    const bool vector_store = OC == Order::row_major && whole_vectors &&
                              reinterpret_cast<std::uintptr_t>(c.data) % 16 == 0 && c.ld % vn == 0 && n0 % vn == 0;
#pragma unroll
    for (int i = 0; i < Rb::rows; ++i) {
      const std::int64_t r = m0 + mma.row(i);
      if (r >= c.rows) continue;
      if constexpr (AnyOrigin) {
        if (r < 0) continue;
      }
#pragma unroll
      for (int g = 0; g < shape::groups_n; ++g) {
        const std::int64_t c0 = n0 + mma.col(g * vn);
        const T* const v = &acc[i][g * vn];
        if constexpr (OC == Order::row_major && whole_vectors) {
          if (vector_store && (!AnyOrigin || c0 >= 0) && c0 + vn <= c.cols) {
            if constexpr (std::is_same_v<T, float>) {
              float4* const p = reinterpret_cast<float4*>(c.data + r * c.ld + c0);
              const float4 old = reads ? *p : float4{0.0f, 0.0f, 0.0f, 0.0f};
              // (The epilogue may return a wider type, converted once: GemmEpilogue.)
              *p = float4{static_cast<float>(epi(v[0], old.x, r, c0)), static_cast<float>(epi(v[1], old.y, r, c0 + 1)),
                          static_cast<float>(epi(v[2], old.z, r, c0 + 2)),
                          static_cast<float>(epi(v[3], old.w, r, c0 + 3))};
            } else {
              double2* const p = reinterpret_cast<double2*>(c.data + r * c.ld + c0);
              const double2 old = reads ? *p : double2{0.0, 0.0};
              *p = double2{static_cast<double>(epi(v[0], old.x, r, c0)),
                           static_cast<double>(epi(v[1], old.y, r, c0 + 1))};
            }
            continue;
          }
        }
#pragma unroll
        for (int j = 0; j < vn; ++j) {
          if (c0 + j < c.cols && (!AnyOrigin || c0 + j >= 0)) {
            T& dst = c(r, c0 + j);
            dst = epi(v[j], reads ? dst : T(0), r, c0 + j);
          }
        }
      }
    }
  }
#endif  // __CUDACC__
};

#if defined(__CUDACC__)

namespace detail {

// True for TiledGemm<...>::TempStorage, which names its configuration.
template <class Storage>
inline constexpr bool is_tiled_gemm_storage_v = requires {
  typename Storage::tiled_gemm_type;
  requires std::is_same_v<Storage, typename Storage::tiled_gemm_type::TempStorage>;
};

// tiled_gemm once its configuration Gemm is known and the matrices hold Gemm's element type.
// AnyOrigin false: the caller's origins are >= 0 (a launcher's tiles), and the element fill
// needs no near-edge code either.
template <class Gemm, bool AnyOrigin = true, class TA, Order OA, class TB, Order OB, class TC, Order OC, class Epilogue>
TILECRAFT_DEVICE void tiled_gemm_run(typename Gemm::TempStorage& storage, MatrixRef<TA, OA> a, MatrixRef<TB, OB> b,
                                     MatrixRef<TC, OC> c, std::int64_t m0, std::int64_t n0, const Epilogue& epi) {
  using T = typename Gemm::element_type;
  using Out = typename Gemm::output_type;
  static_assert(GemmEpilogue<Epilogue, Out>,
                "tiled_gemm: the epilogue must be a GemmEpilogue for the output type (e.reads_c() and "
                "e(acc, c_old, row, col) on C's type, returning no narrower floating type: "
                "BasicLinearCombination<double> for double)");
  // A broken configuration has stated its rule (GemmShape): nothing more to compile.
  if constexpr (Gemm::shape::rules_ok && GemmEpilogue<Epilogue, Out>) {
    const MatrixRef<const T, OA> ca{a.data, a.rows, a.cols, a.ld};
    const MatrixRef<const T, OB> cb{b.data, b.rows, b.cols, b.ld};
    constexpr int v = Gemm::shape::vector_elems;
    // 16-byte vectors start at the tile's origin along M (A column-major) and N (B row-major).
    // Two paths, as few as before tiles could start anywhere: the vector fill for aligned
    // operands and origins >= 0, the element fill (which takes any origin) for the rest.
    if ((!AnyOrigin || (m0 >= 0 && n0 >= 0)) && Gemm::vector_fill_ok(ca, cb) && m0 % v == 0 && n0 % v == 0) {
      Gemm::template run<true>(storage, ca, cb, c, m0, n0, epi);
    } else {
      Gemm::template run<false, AnyOrigin>(storage, ca, cb, c, m0, n0, epi);
    }
  }
}

}  // namespace detail

//! Inside a user's kernel: computes the TM x TN tile of C whose first element is (m0, n0),
//! C(i, j) = epi(sum_k a(i, k) * b(k, j), C(i, j), i, j) for the (i, j) of the tile inside C.
//! `storage` is a TiledGemm<TM, TN, RegBlockT, TK, LanesM, Stages, T, Math>::TempStorage: it names
//! its configuration, so the call takes no template arguments. `a` is op(A), M x K, and `b` is
//! op(B), K x N, in either order (a transposed operand is the other order's view of the same
//! memory: tilecraft::transposed); `c` is M x N. A and B hold the storage's element type T
//! (MatrixRef<const T> or MatrixRef<T>): float or double, with C of the same type, which is
//! also the accumulators'; or __half or __nv_bfloat16, with FP32 accumulators (every product is
//! exact, the sums are FP32) and C float (TiledGemm::output_type) or of the operands' type (the
//! epilogue's float result rounded to nearest; C's old value read as float). The epilogue is a
//! GemmEpilogue for output_type (default: BasicLinearCombination of it, C = A B).
//! Any M, N, K >= 0, any leading dimension, any alignment of T: operands filled in 16-byte
//! vectors when aligned for it (TiledGemm::vector_fill_ok, and m0, n0 multiples of 16 /
//! sizeof(T), and m0, n0 >= 0), element by element otherwise; elements past M, N or K read as
//! zeros. Any origin, negative or past the end: only the tile's elements inside C are computed
//! and stored (a tile wholly outside C reads and writes nothing), so tiles may overhang every
//! edge.
//! Every thread of the block calls it, with the same arguments; the block must have exactly
//! TiledGemm::threads threads. `storage` must be free on entry (its first copies are issued
//! without a barrier: if the block used that memory just before, run `__syncthreads()`
//! first). Barriers: one per K step, plus one at the end, after which `storage` may be reused.
//! Shared memory: TiledGemm::smem_bytes.
//! \code
//! using Gemm = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<4, 4>>;
//! __global__ void gemm_kernel(tilecraft::MatrixRef<const float> a, tilecraft::MatrixRef<const float> b,
//!                             tilecraft::MatrixRef<float> c) {
//!   __shared__ Gemm::TempStorage storage;
//!   tilecraft::tiled_gemm(storage, a, b, c, blockIdx.y * 64LL, blockIdx.x * 64LL);
//! }
//! // The same in double: T follows Stages in TiledGemm's parameters, and the call takes it from the storage.
//! using Dgemm = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<4, 4>, 8, 4, 3, double>;
//! __global__ void dgemm_kernel(tilecraft::MatrixRef<const double> a, tilecraft::MatrixRef<const double> b,
//!                              tilecraft::MatrixRef<double> c) {
//!   __shared__ Dgemm::TempStorage storage;
//!   tilecraft::tiled_gemm(storage, a, b, c, blockIdx.y * 64LL, blockIdx.x * 64LL);
//! }
//! \endcode
template <class Storage, class TA, Order OA, class TB, Order OB, class TC, Order OC,
          class Epilogue = BasicLinearCombination<gemm_output_t<std::remove_const_t<TA>>>>
TILECRAFT_DEVICE void tiled_gemm(Storage& storage, MatrixRef<TA, OA> a, MatrixRef<TB, OB> b, MatrixRef<TC, OC> c,
                                 std::int64_t m0, std::int64_t n0, const Epilogue& epi = {}) {
  static_assert(detail::is_tiled_gemm_storage_v<Storage>,
                "tiled_gemm(storage, ...): storage must be a TiledGemm<TM, TN, RegBlockT, TK, LanesM, Stages, "
                "T>::TempStorage, which names the configuration");
  if constexpr (detail::is_tiled_gemm_storage_v<Storage>) {
    using Gemm = typename Storage::tiled_gemm_type;
    using T = typename Gemm::element_type;
    constexpr bool types_ok = std::is_same_v<std::remove_const_t<TA>, T> &&
                              std::is_same_v<std::remove_const_t<TB>, T> && Gemm::template c_type_ok<TC>;
    static_assert(types_ok,
                  "tiled_gemm: A, B and C must hold the storage's element type T (TiledGemm's T, float by default) "
                  "and C its output type (T, or for __half and __nv_bfloat16 float or T): MatrixRef<const T>, "
                  "MatrixRef<const T>, MatrixRef<TiledGemm::output_type>");
    if constexpr (types_ok) detail::tiled_gemm_run<Gemm>(storage, a, b, c, m0, n0, epi);
  }
}

//! tiled_gemm naming its configuration: tiled_gemm<TM, TN, RegBlockT, TK, LanesM, Stages>(storage,
//! a, b, c, m0, n0, epi) is the call above, with T taken from A (B must hold T too, and C T, or
//! float for __half and __nv_bfloat16) and `storage` that configuration's
//! TiledGemm<TM, TN, RegBlockT, TK, LanesM, Stages, T>::TempStorage (T's default math). The form
//! without template arguments says the same once, through the storage's type.
template <int TM, int TN, class RegBlockT, int TK = 8, int LanesM = 4, int Stages = 3, class Storage, class TA,
          Order OA, class TB, Order OB, class TC, Order OC,
          class Epilogue = BasicLinearCombination<gemm_output_t<std::remove_const_t<TA>>>>
TILECRAFT_DEVICE void tiled_gemm(Storage& storage, MatrixRef<TA, OA> a, MatrixRef<TB, OB> b, MatrixRef<TC, OC> c,
                                 std::int64_t m0, std::int64_t n0, const Epilogue& epi = {}) {
  using T = std::remove_const_t<TA>;
  constexpr bool supported = std::is_same_v<T, float> || std::is_same_v<T, double> || is_gemm_16bit_v<T>;
  constexpr bool one_type = std::is_same_v<std::remove_const_t<TB>, T> &&
                            (std::is_same_v<TC, gemm_output_t<T>> || (is_gemm_16bit_v<T> && std::is_same_v<TC, T>));
  static_assert(one_type && supported,
                "tiled_gemm: A and B must share one element type T that is float, double, __half or __nv_bfloat16, "
                "and C hold T (float or T for __half and __nv_bfloat16): MatrixRef<const T>, MatrixRef<const T>, "
                "MatrixRef<T> (or MatrixRef<float>)");
  if constexpr (one_type && supported) {  // (nothing more to say when the rule is broken)
    using Gemm = TiledGemm<TM, TN, RegBlockT, TK, LanesM, Stages, T>;
    constexpr bool storage_ok = std::is_same_v<Storage, typename Gemm::TempStorage>;
    static_assert(storage_ok,
                  "tiled_gemm: storage must be the TiledGemm<TM, TN, RegBlockT, TK, LanesM, Stages, T>::TempStorage of "
                  "the call's configuration and element type");
    if constexpr (storage_ok) detail::tiled_gemm_run<Gemm>(storage, a, b, c, m0, n0, epi);
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft
