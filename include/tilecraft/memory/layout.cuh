//! \file memory/layout.cuh
//! Layout policies for shared-memory tiles: where element (r, c) of a Rows x Cols tile lives.
//! A policy is a tag type; `Policy::bind<T, Rows, Cols>` is the layout for one tile shape, with
//!   - `offset(r, c)`     element offset from the tile base (constexpr, host and device),
//!   - `storage_elems`    elements of storage the tile occupies (padding included),
//!   - `vector_bytes`     the widest naturally aligned run (<= 16 bytes) that is contiguous in
//!                        every row, so copies may use vector loads/stores of that width.
//! Host-usable: the bank-conflict model evaluates layouts in constexpr host code.
#pragma once

#include <cstddef>

#include "../config.cuh"
#include "../util/math.cuh"

namespace tilecraft {

namespace detail {
// Largest power of two <= 16 that divides `bytes` (and so keeps every row start aligned).
constexpr int largest_vector_dividing(std::size_t bytes) {
  int v = max_vector_bytes;
  while (v > 1 && bytes % static_cast<std::size_t>(v) != 0) v /= 2;
  return v;
}
}  // namespace detail

//! Row-major layout with `Pad` unused elements after every row: the course's
//! `__shared__ float tile[32][33]`. A pad of one 4-byte word moves each row one bank further,
//! so a warp reading a column of a 32-wide float tile hits 32 different banks.
//! Rule: 0 <= Pad and Pad * sizeof(T) < 128 (a whole bank row of padding shifts nothing).
//! \code
//! __shared__ tilecraft::SharedMatrix<float, 32, 32, tilecraft::Padded<1>> padded;  // rows of 33
//! \endcode
template <int Pad = 0>
struct Padded {
  static_assert(Pad >= 0, "Padded<Pad>: Pad must be >= 0 (it is the number of elements added after each row)");
  //! Elements of padding after each row.
  static constexpr int pad = Pad;

  //! The layout of a Rows x Cols tile of T.
  template <class T, int Rows, int Cols>
  struct bind {
    static_assert(Pad < 0 || static_cast<std::size_t>(Pad) * sizeof(T) < smem_wavefront_bytes,
                  "Padded<Pad>: Pad * sizeof(T) must be < 128 bytes; padding a row by a whole bank row "
                  "(32 banks x 4 bytes) moves no access to another bank and only wastes shared memory");
    //! Elements from the start of one row to the start of the next.
    static constexpr int row_stride = Cols + Pad;
    //! Elements of storage, padding included.
    static constexpr int storage_elems = Rows * row_stride;
    //! Widest access (<= 16 bytes) that stays inside a row and starts aligned in every row.
    static constexpr int vector_bytes =
        detail::largest_vector_dividing(static_cast<std::size_t>(row_stride) * sizeof(T)) <
                detail::largest_vector_dividing(static_cast<std::size_t>(Cols) * sizeof(T))
            ? detail::largest_vector_dividing(static_cast<std::size_t>(row_stride) * sizeof(T))
            : detail::largest_vector_dividing(static_cast<std::size_t>(Cols) * sizeof(T));

    //! Element offset of (r, c): r * row_stride + c.
    TILECRAFT_HOST_DEVICE static constexpr int offset(int r, int c) { return r * row_stride + c; }
  };
};

//! XOR-swizzled row-major layout: no wasted bytes. Each row is cut into chunks of `ChunkBytes`
//! (0 means sizeof(T): element granularity) and chunk k of row r is stored at chunk position
//! k ^ ((r / RowGroup) mod P), where P = min(128 / ChunkBytes, chunks per row). A column of a
//! tile whose rows span a bank row or more then walks through P different banks.
//! Element granularity makes column reads conflict-free where a row spans 128 bytes or more
//! (a narrower row repeats its pattern every P rows: a 32-row column of 16 floats a row takes 2
//! wavefronts, of 8 floats 4; Padded<1> takes 1 there); 16-byte chunks keep 16-byte vector
//! accesses along rows intact (what a cp.async or ld.v4 fill needs). RowGroup > 1 gives
//! RowGroup consecutive rows the same permutation, so that accesses to every RowGroup-th row
//! (a thread reading a RowGroup x RowGroup block, e.g. 4 x 4 floats in 16-byte chunks, to
//! transpose it in registers) meet different banks.
//! Rules: ChunkBytes is 0 or a power of two >= sizeof(T) and <= 128; RowGroup is a power of
//! two >= 1; each row holds a whole number of chunks, P is a power of two (a row of 24 chunks
//! is not: chunk 16 ^ 8 = 24 would leave the row), and the number of chunks per row is a
//! multiple of P.
//! \code
//! // 64 x 64 floats, no padding: 16-byte chunks swizzled per row, so that rows stay whole
//! // float4s for cp.async fills and a warp's 4 x 4 blocks (RowGroup 4) meet distinct banks.
//! __shared__ tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16, 4>> swizzled;
//! \endcode
template <int ChunkBytes = 0, int RowGroup = 1>
struct Swizzled {
  // (Each rule below is checked only where the ones before it hold: a broken rule's message
  // comes alone, not beside the divisions by zero it would cause.)
  //! Whether ChunkBytes keeps its rule (0, or a power of two <= 128).
  static constexpr bool chunk_rule = ChunkBytes == 0 || (is_pow2(ChunkBytes) && ChunkBytes <= smem_wavefront_bytes);
  static_assert(chunk_rule, "Swizzled<ChunkBytes>: ChunkBytes must be 0 (one element) or a power of two <= 128");
  static_assert(RowGroup >= 1 && is_pow2(RowGroup),
                "Swizzled<ChunkBytes, RowGroup>: RowGroup must be a power of two >= 1 (rows that share one XOR)");

  //! The layout of a Rows x Cols tile of T.
  template <class T, int Rows, int Cols>
  struct bind {
    //! Bytes of one swizzled chunk.
    static constexpr int chunk_bytes = ChunkBytes == 0 ? static_cast<int>(sizeof(T)) : ChunkBytes;
    //! Whether a chunk holds whole elements.
    static constexpr bool element_rule = chunk_bytes % static_cast<int>(sizeof(T)) == 0;
    static_assert(!chunk_rule || element_rule, "Swizzled<ChunkBytes>: ChunkBytes must be a multiple of sizeof(T)");
    //! Elements of one chunk.
    static constexpr int chunk_elems = element_rule ? chunk_bytes / static_cast<int>(sizeof(T)) : 1;
    //! Whether a row holds whole chunks.
    static constexpr bool cols_rule = Cols % chunk_elems == 0;
    static_assert(!chunk_rule || !element_rule || cols_rule,
                  "Swizzled<ChunkBytes>: Cols * sizeof(T) must be a multiple of ChunkBytes");
    //! Chunks in a row.
    static constexpr int row_chunks = Cols / chunk_elems;
    //! XOR period: min(128 / chunk_bytes, row_chunks).
    static constexpr int period =
        row_chunks < smem_wavefront_bytes / chunk_bytes ? row_chunks : smem_wavefront_bytes / chunk_bytes;
    static_assert(!chunk_rule || !element_rule || !cols_rule || (is_pow2(period) && row_chunks % period == 0),
                  "Swizzled<ChunkBytes>: the chunks in a row must be a multiple of the XOR period "
                  "min(128 / ChunkBytes, chunks per row), which must be a power of two "
                  "(e.g. a float tile needs Cols a power of two below 32, or a multiple of 32)");
    //! Elements from the start of one row to the start of the next (no padding).
    static constexpr int row_stride = Cols;
    //! Elements of storage.
    static constexpr int storage_elems = Rows * Cols;
    //! Widest contiguous access along a row: one chunk, at most 16 bytes.
    static constexpr int vector_bytes = chunk_bytes < max_vector_bytes ? chunk_bytes : max_vector_bytes;

    //! Element offset of (r, c): chunk c / chunk_elems of row r moved to position
    //! (chunk ^ ((r / RowGroup) % period)).
    TILECRAFT_HOST_DEVICE static constexpr int offset(int r, int c) {
      // Unsigned: the divisions by powers of two compile to shifts.
      const unsigned chunk = static_cast<unsigned>(c) / chunk_elems;
      const unsigned within = static_cast<unsigned>(c) % chunk_elems;
      const unsigned phase = (static_cast<unsigned>(r) / RowGroup) % period;
      return r * row_stride + static_cast<int>((chunk ^ phase) * chunk_elems + within);
    }
  };
};

}  // namespace tilecraft
