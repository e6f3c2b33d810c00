//! \file gemm/detail/operand_fill.cuh
//! Filling one stage's A or B tile from global memory: the GEMM's partition
//! (GemmShape::FillRows / FillScatter decide which thread moves which element) bound to one
//! operand's addressing, with two transfers: asynchronous copies (issue_whole() and
//! issue_edge(), the cp.async mainloop of sm_80+) and a register stage (load() then store(),
//! the register double buffer below sm_80). Elements outside the operand (past M, N or K) become zeros, so they add
//! nothing to the accumulators and the mainloop needs no bounds of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <nv/target>

#include "../../arch/cp_async.cuh"
#include "../../arch/smem_address.cuh"
#include "../../config.cuh"
#include "../../memory/copy_async.cuh"
#include "../../memory/global_word.cuh"
#include "../gemm_shape.cuh"

namespace tilecraft::detail {

#if defined(__CUDACC__)

//! How an operand tile is laid out against the operand in global memory.
enum class FillKind {
  rows,     //!< K-major tile whose rows are contiguous in global memory: vectors of Width elements
  scatter,  //!< K-major tile of a K-contiguous operand: element by element, transposed
  k_rows,   //!< L x TK tile of a K-contiguous operand (tensor-core math): vectors along K
};

//! The fill of one operand tile of Shape's element type T. Kind::rows: a K-major tile (TK x L)
//! of an L-contiguous operand (A column-major, B row-major), so tile rows are contiguous in
//! global memory and move in vectors of Width elements (Shape::vector_elems, i.e. 16 bytes,
//! when the operand is 16-byte aligned with ld a multiple of it); Kind::scatter: a K-major tile
//! of a K-contiguous operand, single elements moved transposed; Kind::k_rows: an L x TK tile of
//! a K-contiguous operand (GemmShape::TileAk, TileBk), its rows contiguous in global memory
//! along K, in vectors of Width elements (GemmShape::FillKRows).
//! A thread keeps the global offset and tile position of its first element only; the others
//! are compile-time steps away (GemmShape::FillRows / FillScatter). A K step that lies wholly
//! inside the operand is copied without predicates (issue_whole(), load()). AnyOrigin: the
//! tile may start before the operand along L (l0 < 0); without it l0 >= 0 (the launchers'
//! tiles), which keeps a register and a compare out of their fills.
template <class Shape, class Tile, FillKind Kind, int Width, bool AnyOrigin = false>
class OperandFill {
  static constexpr int rows = Tile::rows;
  static constexpr int cols = Tile::cols;
  static constexpr int tk = Shape::tile_k;
  static constexpr bool scatter = Kind == FillKind::scatter;
  // Tile rows index L and columns K (k_rows); otherwise rows index K.
  static constexpr bool l_rows = Kind == FillKind::k_rows;
  // The tile's extent along L.
  static constexpr int tile_l = l_rows ? rows : cols;
  static_assert(tile_l < (1 << 15), "OperandFill: a tile spans fewer than 2^15 elements along L");
  static_assert(!scatter || Width == 1, "OperandFill: a scatter moves single elements");
  using T = typename Shape::element_type;
  static constexpr int elem_bytes = static_cast<int>(sizeof(T));
  static constexpr int vector = Shape::vector_elems;  // elements of one 16-byte copy
  using Map = std::conditional_t<scatter, typename Shape::template FillScatter<cols>,
                                 std::conditional_t<l_rows, typename Shape::template FillKRows<rows, Width>,
                                                    typename Shape::template FillRows<rows, cols, Width>>>;
  static constexpr int per_thread = Map::per_thread;
  // A ragged last pass: some threads' last element lies past the tile.
  static constexpr bool ragged = per_thread * Shape::threads * (scatter ? 1 : Width) != rows * cols;
  // One copy's register word: an element, or a 16-byte vector.
  using Word = std::conditional_t<Width == 1, T, vector_word_t<elem_bytes * Width>>;

 public:
  //! The register stage of one K step: this thread's copies (per_thread words of Width
  //! elements), held between load() and store().
  struct Staged {
    Word word[static_cast<std::size_t>(per_thread)];
  };

  //! `base`: element (0, 0) of the operand (A: M x K, B: K x N); `ld`: its leading dimension;
  //! `l_count`, `k_count`: its extent along L (M for A, N for B) and K; `l0`: the tile's first
  //! L index; `thread`: the calling thread's rank in the block.
  TILECRAFT_DEVICE OperandFill(const T* base, std::int64_t ld, std::int64_t l_count, std::int64_t k_count,
                               std::int64_t l0, int thread)
      : base_(base), ld_(ld), k_count_(k_count), row_(Map::row(thread)), col_(Map::col(thread)) {
    tile_offset_ = Tile::offset(row_, col_);
    // Element (row, col) of a K-major tile is the operand's (k, l) = (row, l0 + col), at
    // l * ld + k (K contiguous: scatter) or k * ld + l; of an L x TK tile (k_rows) it is
    // (k, l) = (col, l0 + row), at l * ld + k.
    offset_ = scatter ? (l0 + col_) * ld + row_ : l_rows ? (l0 + row_) * ld + col_ : row_ * ld + (l0 + col_);
    // The tile's part inside the operand along L: tile indices [l_lo(), l_left()), empty for a
    // tile wholly outside.
    const std::int64_t l_left = l_count - l0;
    bounds_ = static_cast<int>(l_left < 0 ? 0 : (l_left > tile_l ? tile_l : l_left));
    full_l_ = l0 + tile_l <= l_count;
    if constexpr (AnyOrigin) {
      bounds_ |= static_cast<int>(l0 >= 0 ? 0 : (-l0 > tile_l ? tile_l : -l0)) << 16;  // one word for both
      full_l_ = full_l_ && l0 >= 0;
    }
  }

  // The asynchronous transfer (the cp.async mainloop of sm_80+). A mainloop keeps, per
  // operand, a source pointer (source(), advanced by step_stride() per K step) and the
  // shared-window address of this thread's first element in stage 0 (destination(), plus a
  // constant per stage): no offsets are recomputed from the step, no pointers converted.

  //! K steps [0, whole_steps()) lie inside the operand along K and the tile along L (the test
  //! is block-uniform): issue_whole() copies them without predicates, issue_edge() the rest.
  TILECRAFT_DEVICE std::int64_t whole_steps() const { return full_l_ ? k_count_ / tk : 0; }
  //! The operand's extent along K.
  TILECRAFT_DEVICE std::int64_t k_count() const { return k_count_; }
  //! This thread's first source element of K step 0.
  TILECRAFT_DEVICE const T* source() const { return base_ + offset_; }
  //! How far source() moves from one K step to the next, in elements.
  TILECRAFT_DEVICE std::int64_t step_stride() const { return scatter || l_rows ? tk : tk * ld_; }
  //! Shared-window address of this thread's first element in `tile`.
  TILECRAFT_DEVICE std::uint32_t destination(const Tile& tile) const {
    return arch::smem_address(tile.data() + tile_offset_);
  }

  //! Issues the copies of a whole K step (no commit): `src` is source() advanced to the step,
  //! `dst` destination() of the stage it fills.
  TILECRAFT_DEVICE void issue_whole(std::uint32_t dst, const T* src) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      if (ragged && row_ + Map::row_step(i) >= rows) break;
      copy<elem_bytes * Width>(dst + shared_step(i), src + global_step(i));
    }
  }

  //! Issues the copies of any K step (no commit), with `k_left` elements of K left from the
  //! step's start: elements outside the operand zero-fill. `src` and `dst` as for issue_whole().
  //! A tile ragged along L (its last tile row or column reaching past the operand) runs every
  //! K step here, so each vector copy is one cp.async whose source size is the count of its
  //! elements inside (a vector partly inside reads that part only): no branch on the count,
  //! and no divergence in a warp where one lane's vector is partly inside. (Three branches,
  //! one of them a copy per element, ran 2000^3's ragged tiles, and so the whole wave, 12%
  //! slower than its K alone explains: benchmarks/TUNING.md.)
  TILECRAFT_DEVICE void issue_edge(std::uint32_t dst, const T* src, std::int64_t k_left) const {
    if constexpr (Width > 1) {
#pragma unroll
      for (int i = 0; i < per_thread; ++i) {
        const int row = row_ + Map::row_step(i);
        if (ragged && row >= rows) break;
        const std::uint32_t d = dst + shared_step(i);
        const int n = inside(row, col_ + Map::col_step(i), k_left);
        // Only elements inside the operand are read; the others zero-fill and read nothing
        // (a copy with none inside takes the operand's first element as its source, unread).
        const T* const e = n > 0 ? src + global_step(i) : base_;
        copy_prefix<elem_bytes * Width>(d, e, n * elem_bytes);
      }
    } else {
      // Element by element: K left as an int once a step (a tile's steps before the last see
      // all of theirs inside), and a copy with nothing inside keeps its own address (a source
      // size of 0 reads no byte). (The same for the vector copies cost the whole tiles of
      // 2048^3 and 4096^3 1.3%, which never run this path: it changed the mainloop's code
      // around it. benchmarks/TUNING.md, "Packed operands of whole tiles".)
      const int k_in = k_left < tk ? static_cast<int>(k_left) : tk;
#pragma unroll
      for (int i = 0; i < per_thread; ++i) {
        const int row = row_ + Map::row_step(i);
        if (ragged && row >= rows) break;
        const int n = inside(row, col_ + Map::col_step(i), k_in);
        copy<elem_bytes>(dst + shared_step(i), src + global_step(i), n > 0);
      }
    }
  }

  //! Loads this thread's elements of the K step starting at `k0` into registers (zeros for
  //! those outside the operand): the first half of the register double buffer, issued before
  //! the current stage's FMAs so that they cover the loads' latency.
  TILECRAFT_DEVICE void load(Staged& staged, std::int64_t k0) const {
    TILECRAFT_ASSERT((Width == 1 || (reinterpret_cast<std::uintptr_t>(base_) % 16 == 0 && ld_ % Width == 0)) &&
                     "tiled_gemm: a vector fill needs a 16-byte aligned operand with ld a multiple of the vector");
    const std::int64_t offset = offset_ + (scatter || l_rows ? k0 : k0 * ld_);
    if (full_l_ && k0 + tk <= k_count_) {  // block-uniform (whole_steps())
#pragma unroll
      for (int i = 0; i < per_thread; ++i) {
        if (ragged && row_ + Map::row_step(i) >= rows) break;
        staged.word[i] = *reinterpret_cast<const Word*>(base_ + (offset + global_step(i)));
      }
      return;
    }
    const std::int64_t k_left = k_count_ - k0;
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int row = row_ + Map::row_step(i);
      if (ragged && row >= rows) break;
      const int n = inside(row, col_ + Map::col_step(i), k_left);
      const std::int64_t o = offset + global_step(i);
      if constexpr (Width == vector && Width > 1) {
        if (n == vector) {
          staged.word[i] = *reinterpret_cast<const Word*>(base_ + o);
        } else {
          T e[static_cast<std::size_t>(vector)];
#pragma unroll
          for (int j = 0; j < vector; ++j) e[j] = j < n ? base_[o + j] : T{};
          std::memcpy(&staged.word[i], e, sizeof(Word));
        }
      } else {
        staged.word[i] = n > 0 ? base_[o] : T{};
      }
    }
  }

  //! Stores what load() staged into `tile` (the stage no thread reads until the next barrier).
  TILECRAFT_DEVICE void store(Tile& tile, const Staged& staged) const {
    T* const dst = tile.data() + tile_offset_;
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      if (ragged && row_ + Map::row_step(i) >= rows) break;
      *reinterpret_cast<Word*>(dst + Tile::offset(Map::row_step(i), Map::col_step(i))) = staged.word[i];
    }
  }

 private:
  // One copy of Bytes to the shared-window address dst: cp.async (4, 8 or 16 bytes; zero-fill
  // where !valid, the unpredicated form where valid is known true), or for a single 2-byte
  // element, which cp.async cannot move, a load and a store through a register (synchronous:
  // done before the stage's commit, so before the barrier that publishes the stage).
  template <int Bytes>
  TILECRAFT_DEVICE static void copy(std::uint32_t dst, const T* src, bool valid) {
    if constexpr (Bytes >= 4) {
      copy_async<Bytes>(dst, src, valid);
    } else {
      *static_cast<T*>(__cvta_shared_to_generic(dst)) = valid ? *src : T{};
    }
  }
  template <int Bytes>
  TILECRAFT_DEVICE static void copy(std::uint32_t dst, const T* src) {
    if constexpr (Bytes >= 4) {
      copy_async<Bytes>(dst, src);
    } else {
      *static_cast<T*>(__cvta_shared_to_generic(dst)) = *src;
    }
  }

  // The first `bytes` (0 ... Bytes, whole elements) of the Bytes at src, zeros after them: one
  // cp.async with a source size (it reads those bytes only); element by element where copies
  // are synchronous.
  template <int Bytes>
  TILECRAFT_DEVICE static void copy_prefix(std::uint32_t dst, const T* src, int bytes) {
    static_assert(Bytes == 16, "OperandFill::copy_prefix: for 16-byte vectors");
    TILECRAFT_ASSERT(dst % 16 == 0 && reinterpret_cast<std::uintptr_t>(src) % 16 == 0 && bytes >= 0 && bytes <= Bytes &&
                     "tiled_gemm: a vector copy needs 16-byte aligned addresses and at most 16 bytes read");
    if constexpr (cp_async_disabled) {
      copy_prefix_sync<Bytes>(dst, src, bytes);
    } else {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (arch::cp_async_cg_zfill<16>(dst, src, static_cast<std::uint32_t>(bytes));),
                        (copy_prefix_sync<Bytes>(dst, src, bytes);))
    }
  }
  template <int Bytes>
  TILECRAFT_DEVICE static void copy_prefix_sync(std::uint32_t dst, const T* src, int bytes) {
    T* const out = static_cast<T*>(__cvta_shared_to_generic(dst));
#pragma unroll
    for (int j = 0; j < Bytes / elem_bytes; ++j) out[j] = j * elem_bytes < bytes ? src[j] : T{};
  }

  // Byte offset of copy i's destination from this thread's first element.
  TILECRAFT_HOST_DEVICE static constexpr std::uint32_t shared_step(int i) {
    return static_cast<std::uint32_t>(Tile::offset(Map::row_step(i), Map::col_step(i)) * elem_bytes);
  }

  // How many of the Width elements from tile (row, col) lie inside the operand, with k_left
  // elements of K left from the step's start: along K (rows of a K-major tile, columns of an
  // L x TK one) and along L. A vector of Width elements along L starts at a multiple of Width,
  // and so does l_lo() (the vector fill needs origins that are multiples of it): no vector
  // straddles the operand's first row or column.
  TILECRAFT_DEVICE int inside(int row, int col, std::int64_t k_left) const {
    if constexpr (AnyOrigin) {
      if (l_rows ? row < l_lo() : col < l_lo()) return 0;
    }
    if constexpr (l_rows) {
      if (row >= l_left() || col >= k_left) return 0;
      const std::int64_t left = k_left - col;
      return left < Width ? static_cast<int>(left) : Width;
    } else {
      const int left = l_left() - col;
      return row >= k_left || left <= 0 ? 0 : (left < Width ? left : Width);
    }
  }
  TILECRAFT_DEVICE int l_lo() const { return AnyOrigin ? bounds_ >> 16 : 0; }
  TILECRAFT_DEVICE int l_left() const { return AnyOrigin ? bounds_ & 0xFFFF : bounds_; }

  // Global offset of element i from element 0 of this thread.
  TILECRAFT_DEVICE std::int64_t global_step(int i) const {
    return scatter ? Map::col_step(i) * ld_ + Map::row_step(i) : Map::row_step(i) * ld_ + Map::col_step(i);
  }

  const T* base_;
  std::int64_t ld_;
  std::int64_t k_count_;
  std::int64_t offset_;  // global offset of this thread's first element at k0 = 0
  int row_;              // its tile row
  int col_;              // its tile column
  int tile_offset_;      // its offset in the tile
  int bounds_;           // l_left() (| l_lo() << 16 with AnyOrigin)
  bool full_l_;          // the whole tile lies inside the operand along L
};

#endif  // __CUDACC__

}  // namespace tilecraft::detail
