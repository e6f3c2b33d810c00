//! \file memory/bank_model.cuh
//! A compile-time model of shared-memory bank conflicts.
//!
//! Given the byte address each lane of a warp touches in one shared-memory instruction, it
//! answers how many wavefronts (shared-memory cycles) the instruction needs, following the
//! documented rules for sm_75 ... sm_90:
//!   - 32 banks of 4 bytes; word w lives in bank w % 32;
//!   - in one wavefront a bank serves one word; lanes that touch the same word share it
//!     (broadcast/multicast), so only *distinct* words in a bank cost extra wavefronts;
//!   - accesses of 1, 2 or 4 bytes are served for the whole warp at once; 8-byte accesses in two
//!     phases (lanes 0-15, 16-31) and 16-byte accesses in four (8 lanes each), whose wavefronts
//!     add up. A conflict-free 8-byte warp access therefore costs 2 wavefronts, 16-byte 4.
//!   - `ldmatrix` (the tensor cores' 16-bit fragment load) reads 1, 2 or 4 matrices of 8 rows of 16
//!     bytes; the addresses of matrix j's rows come from lanes 8j ... 8j + 7, and each matrix is
//!     one phase of 8 lanes, as a 16-byte access: conflict-free is one wavefront per matrix.
//! Everything is constexpr host code (compiled by plain g++ too): layouts are checked with
//! static_assert in host code, or at namespace or class scope next to a kernel, not inside a
//! __device__ function.
#pragma once

#include <stdexcept>

#include "../config.cuh"
#include "../util/math.cuh"

namespace tilecraft::bank {

namespace detail {
// Reached only where a rule below is broken. Not constexpr: a constant evaluation (a
// static_assert of a layout) that reaches one fails to compile with the rule in the function's
// name; a call at run time throws.
inline void access_bytes_must_be_1_2_4_8_or_16() {
  throw std::invalid_argument("tilecraft::bank: access_bytes must be 1, 2, 4, 8 or 16");
}
inline void ldmatrix_matrices_must_be_1_2_or_4() {
  throw std::invalid_argument("tilecraft::bank: an ldmatrix reads 1, 2 or 4 matrices");
}
}  // namespace detail

//! Wavefronts needed by one warp-wide shared-memory access in which lane i touches
//! `access_bytes` (1, 2, 4, 8 or 16) bytes at byte address `addr(i)`; a negative address
//! marks lane i inactive. Addresses are relative to a 128-byte-aligned base.
//! Returns 0 when no lane is active.
//! \code
//! struct StrideChecks {  // lane i reads the float at word 33 i, then at word 32 i
//!   static_assert(tilecraft::bank::wavefronts([](int lane) { return lane * 33 * 4; }, 4) == 1);
//!   static_assert(tilecraft::bank::wavefronts([](int lane) { return lane * 32 * 4; }, 4) == 32);
//!   static_assert(tilecraft::bank::wavefronts([](int lane) { return lane * 16; }, 16) ==
//!                 tilecraft::bank::ideal_wavefronts(16));  // float4 per lane, contiguous: 4
//! };
//! \endcode
template <class AddrFn>
constexpr int wavefronts(AddrFn addr, int access_bytes) {
  if (access_bytes != 1 && access_bytes != 2 && access_bytes != 4 && access_bytes != 8 && access_bytes != 16) {
    detail::access_bytes_must_be_1_2_4_8_or_16();
  }
  const int phases = access_bytes <= 4 ? 1 : access_bytes / 4;  // 8 B: 2, 16 B: 4
  const int lanes_per_phase = warp_threads / phases;
  const int words_per_lane = access_bytes <= 4 ? 1 : access_bytes / 4;
  int total = 0;
  for (int phase = 0; phase < phases; ++phase) {
    // distinct[b][k]: the k-th distinct word seen in bank b during this phase.
    long long distinct[smem_banks][warp_threads] = {};
    int count[smem_banks] = {};
    int worst = 0;
    for (int l = 0; l < lanes_per_phase; ++l) {
      const long long a = addr(phase * lanes_per_phase + l);
      if (a < 0) continue;
      for (int w = 0; w < words_per_lane; ++w) {
        const long long word = a / smem_bank_bytes + w;
        const int b = static_cast<int>(word % smem_banks);
        bool seen = false;
        for (int k = 0; k < count[b]; ++k) seen = seen || distinct[b][k] == word;
        if (!seen) distinct[b][count[b]++] = word;
        if (count[b] > worst) worst = count[b];
      }
    }
    total += worst;
  }
  return total;
}

//! The fewest wavefronts any addresses could need for a full warp of `access_bytes`-wide
//! accesses: 1 up to 4 bytes, 2 for 8 bytes, 4 for 16 bytes. wavefronts() == ideal means
//! conflict-free.
constexpr int ideal_wavefronts(int access_bytes) { return access_bytes <= 4 ? 1 : access_bytes / 4; }

//! Wavefronts of one `ldmatrix` of `matrices` (1, 2 or 4) 8 x 8 matrices of 16-bit elements
//! (.x1, .x2, .x4; .trans reads the same bytes): lane i < 8 * matrices gives `row_addr(i)`, the
//! byte address of row i % 8 of matrix i / 8 (16 bytes, 16-byte aligned); the other lanes'
//! addresses are not read. Each matrix is one phase: ideal is `matrices` wavefronts.
template <class AddrFn>
constexpr int ldmatrix_wavefronts(AddrFn row_addr, int matrices) {
  if (matrices != 1 && matrices != 2 && matrices != 4) detail::ldmatrix_matrices_must_be_1_2_or_4();
  return wavefronts([&](int lane) -> long long { return lane < 8 * matrices ? row_addr(lane) : -1; }, 16);
}

//! Row and column of a tile element touched by one lane; row < 0 marks an inactive lane.
struct Coord {
  //! Tile row (negative: the lane is inactive).
  int row;
  //! Tile column.
  int col;
};

//! Wavefronts for a warp access to a tile (a SharedMatrix, or a view of one) in which lane i
//! touches element `map(i)` (a Coord) with accesses `access_bytes` wide (default: one element;
//! wider accesses read `access_bytes / sizeof(T)` contiguous elements of the row).
template <class Tile, class Map>
constexpr int tile_wavefronts(Map map, int access_bytes = static_cast<int>(sizeof(typename Tile::value_type))) {
  return wavefronts(
      [&](int lane) -> long long {
        const Coord rc = map(lane);
        if (rc.row < 0) return -1;
        return static_cast<long long>(Tile::offset(rc.row, rc.col)) *
               static_cast<long long>(sizeof(typename Tile::value_type));
      },
      access_bytes);
}

//! Wavefronts of an `ldmatrix` of `matrices` (1, 2 or 4) 8 x 8 blocks of a tile of 2-byte
//! elements (a SharedMatrix): lane i < 8 * matrices gives `map(i)`, the Coord of the first of
//! the 8 elements (16 bytes) of its row, which the layout must keep contiguous and aligned
//! (vector_bytes == 16: Padded by a multiple of 8 elements, or Swizzled with chunks of 16 bytes
//! or more; a transposed view's rows are not contiguous).
template <class Tile, class Map>
constexpr int tile_ldmatrix_wavefronts(Map map, int matrices) {
  static_assert(sizeof(typename Tile::value_type) == 2,
                "tile_ldmatrix_wavefronts: ldmatrix reads 8 x 8 matrices of 16-bit elements (half, bfloat16; "
                "TF32 operands are read as pairs of them)");
  static_assert(Tile::vector_bytes == max_vector_bytes,
                "tile_ldmatrix_wavefronts: ldmatrix reads 16 contiguous, 16-byte aligned bytes a row: the tile must "
                "keep 16-byte chunks along its rows (vector_bytes == 16: a SharedMatrix Padded by a multiple of 8 "
                "elements, or Swizzled with chunks of 16 bytes or more)");
  return ldmatrix_wavefronts(
      [&](int lane) -> long long {
        const Coord rc = map(lane);
        if (rc.row < 0) return -1;
        return static_cast<long long>(Tile::offset(rc.row, rc.col)) * 2;
      },
      matrices);
}

//! The ldmatrix.x4 a warp issues for a 16 x 16 block of a tile of 2-byte elements at
//! (row0, col0), the A fragment of an m16n8k16 MMA: lanes 0-15 give rows row0 ... row0 + 15 at
//! column col0, lanes 16-31 the same rows at col0 + 8.
template <class Tile>
constexpr int fragment_a_ldmatrix_wavefronts(int row0 = 0, int col0 = 0) {
  return tile_ldmatrix_wavefronts<Tile>([&](int lane) { return Coord{row0 + lane % 16, col0 + (lane / 16) * 8}; }, 4);
}

//! The ldmatrix.x2.trans a warp issues for a 16 x 8 block of a K-major tile (row k holds B's
//! row k) of 2-byte elements at (k0, n0), the B fragment of an m16n8k16 MMA: lanes 0-15 give
//! rows k0 ... k0 + 15 at column n0.
template <class Tile>
constexpr int fragment_b_ldmatrix_wavefronts(int k0 = 0, int n0 = 0) {
  return tile_ldmatrix_wavefronts<Tile>([&](int lane) { return Coord{k0 + lane % 16, n0}; }, 2);
}

//! One 32-bit register of an m16n8k8 TF32 fragment read with a 4-byte load per lane from a
//! K-major tile (row k holds the operand's elements k of M or N) of 4-byte elements: lane
//! (g, t) = (lane / 4, lane % 4) reads element (k0 + t, mn0 + g). A's a0 is this at (k0, m0),
//! a1 at (k0, m0 + 8), a2 at (k0 + 4, m0), a3 at (k0 + 4, m0 + 8); B's b0 at (k0, n0), b1 at
//! (k0 + 4, n0). Conflict-free (1 wavefront) needs the four rows k0 ... k0 + 3 to put their
//! 8 columns in distinct banks: a row length of 8 (mod 32) words does, 0 or 4 does not.
template <class Tile>
constexpr int fragment_tf32_wavefronts(int k0 = 0, int mn0 = 0) {
  static_assert(sizeof(typename Tile::value_type) == 4,
                "fragment_tf32_wavefronts: TF32 operands are 4-byte elements (float bit patterns)");
  return tile_wavefronts<Tile>([&](int lane) { return Coord{k0 + lane % 4, mn0 + lane / 4}; }, 4);
}

//! Lane i reads element (row, first_col + i * Stride): a warp walking along a row.
template <class Tile, int Stride = 1>
constexpr int row_wavefronts(int row = 0, int first_col = 0) {
  return tile_wavefronts<Tile>([&](int lane) { return Coord{row, (first_col + lane * Stride) % Tile::cols}; });
}

//! Lane i reads element (i, col): a warp walking down a column (rows wrap for short tiles).
//! \code
//! struct TransposeTileChecks {  // (class or namespace scope: the model is host code)
//!   using Plain = tilecraft::SharedMatrix<float, 32, 32>;
//!   using Padded = tilecraft::SharedMatrix<float, 32, 32, tilecraft::Padded<1>>;
//!   static_assert(tilecraft::bank::column_wavefronts<Plain>() == 32);  // one bank: 32 wavefronts
//!   static_assert(tilecraft::bank::column_wavefronts<Padded>() == 1);  // rows of 33 words
//!   static_assert(tilecraft::bank::row_wavefronts<Padded>() == 1);
//! };
//! \endcode
template <class Tile>
constexpr int column_wavefronts(int col = 0) {
  return tile_wavefronts<Tile>([&](int lane) { return Coord{lane % Tile::rows, col}; });
}

//! Every lane reads the same element: a broadcast, always one wavefront.
template <class Tile>
constexpr int broadcast_wavefronts(int row = 0, int col = 0) {
  return tile_wavefronts<Tile>([&](int) { return Coord{row, col}; });
}

}  // namespace tilecraft::bank
