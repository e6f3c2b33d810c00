// Bad runtime arguments are rejected with cudaErrorInvalidValue before any launch. These run
// without a GPU: every rejection happens before the first CUDA call.
#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include <tilecraft/device/gemm.cuh>
#include <tilecraft/device/reduce.cuh>
#include <tilecraft/memory/tile_copy.cuh>
#include <tilecraft/util/functional.cuh>

#include "transpose_stencil_argument_cases.h"

using namespace tilecraft;

TEST_CASE("reduce rejects bad arguments before launching") {
  auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  void* temp = reinterpret_cast<void*>(std::uintptr_t{1} << 32);
  std::size_t bytes = 1 << 20;
  CHECK(reduce(temp, bytes, in, out, -1, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(nullptr, bytes, in, out, -5, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(temp, bytes, in, static_cast<float*>(nullptr), 10, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(temp, bytes, static_cast<const float*>(nullptr), out, 10, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(in, static_cast<float*>(nullptr), 10, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(in, out, -1, Sum{}, 0.0f) == cudaErrorInvalidValue);
  // Pointers not aligned to their types.
  const auto* in_odd = reinterpret_cast<const float*>((std::uintptr_t{1} << 20) + 2);
  auto* out_odd = reinterpret_cast<float*>((std::uintptr_t{1} << 30) + 1);
  CHECK(reduce(temp, bytes, in_odd, out, 10, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(temp, bytes, in, out_odd, 10, Sum{}, 0.0f) == cudaErrorInvalidValue);
  // Sizes whose bytes pass 2^63 (n * sizeof(float) would wrap to a small size), in the size
  // query too; double's limit is half of float's.
  CHECK(reduce(nullptr, bytes, in, out, std::int64_t{1} << 61, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(temp, bytes, in, out, (std::int64_t{1} << 62) + 5, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(temp, bytes, in, out, INT64_MAX, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(nullptr, bytes, reinterpret_cast<const double*>(in), reinterpret_cast<double*>(out),
               std::int64_t{1} << 60, Sum{}, 0.0) == cudaErrorInvalidValue);
  // Small inputs need no device query: the size query works without a GPU.
  std::size_t query = 0;
  CHECK(reduce(nullptr, query, in, out, 1000, Sum{}, 0.0f) == cudaSuccess);
  CHECK(query >= 1);
  // Too little or misaligned temp storage.
  std::size_t small = query - 1;
  CHECK(reduce(temp, small, in, out, 1000, Sum{}, 0.0f) == cudaErrorInvalidValue);
  CHECK(reduce(static_cast<char*>(temp) + 4, query, in, out, 1000, Sum{}, 0.0f) == cudaErrorInvalidValue);
  // Temp storage inside the input (the grid kernel writes its partials while others read).
  auto* inside_in = const_cast<char*>(reinterpret_cast<const char*>(in)) + 256;
  CHECK(reduce(inside_in, query, in, out, 1000, Sum{}, 0.0f) == cudaErrorInvalidValue);
}

// The launcher checks its arguments before anything else: with alpha = 0 and beta = 1 (BLAS's
// quick return, no CUDA call at all) a valid call succeeds and each bad argument still fails.
// (The rules themselves: tests/host/test_gemm_args.cpp; one explicit policy keeps this file's
// kernels few.)
TEST_CASE("gemm checks its arguments before its quick return") {
  auto* a = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* b = reinterpret_cast<const float*>(std::uintptr_t{1} << 30);
  auto* c = reinterpret_cast<float*>(std::uintptr_t{1} << 40);
  const Order row = Order::row_major;
  const Op none = Op::none;
  auto call = [&](std::int64_t k, std::int64_t lda, const float* pa, float* pc) {
    return gemm<GemmPolicySmall>(row, none, none, 5, 6, k, 0.0f, pa, lda, b, 6, 1.0f, pc, 6);
  };
  CHECK(call(7, 7, a, c) == cudaSuccess);
  CHECK(call(7, 6, a, c) == cudaErrorInvalidValue);        // lda below k
  CHECK(call(-1, 7, a, c) == cudaErrorInvalidValue);       // negative k
  CHECK(call(7, 7, nullptr, c) == cudaErrorInvalidValue);  // null A
  CHECK(call(7, 7, a, nullptr) == cudaErrorInvalidValue);  // null C
  CHECK(call(7, 7, a, c + 1) == cudaSuccess);              // aligned to the element: fine
  CHECK(gemm<GemmPolicySmall>(static_cast<Order>(5), none, none, 5, 6, 7, 0.0f, a, 7, b, 6, 1.0f, c, 6) ==
        cudaErrorInvalidValue);
  // 2^31 K steps of the policy's 16 (an int count in the mainloop), a real product (alpha = 1):
  // refused before anything asks the device (or packs), so without a GPU too.
  const std::int64_t k_steps_over = std::int64_t{INT_MAX} * GemmPolicySmall::tile_k + 1;
  CHECK(gemm<GemmPolicySmall>(row, none, none, 5, 6, k_steps_over, 1.0f, a, k_steps_over, b, 6, 0.0f, c, 6) ==
        cudaErrorInvalidValue);
}

// Compiled, never launched: a fill value of another arithmetic type converts to the tile's
// element type (it is not part of the deduction), for the register and the asynchronous load.
[[maybe_unused]] __global__ void fill_converts(const float* in) {
  __shared__ SharedTile<float, 32, 1> tile;
  copy_tile<128>(tile, MatrixRef<const float>{in, 32, 32, 32}, 0, 0, 0);
  copy_tile_async<128>(tile, MatrixRef<const float>{in, 32, 32, 32}, 0, 0, -1);
}

TEST_CASE("a tile copy's window at any origin: the rows and columns inside, no overflow") {
  // The window a cooperative copy computes once per tile: which of a Rows x Cols tile's rows and
  // columns lie inside the matrix, and the address of its element (0, 0), for origins anywhere
  // (the extremes of int64 too), against the same quantities in 128-bit arithmetic.
  constexpr int rows = 8, cols = 16;
  using Window = detail::TileWindow<detail::CopyShape<rows, cols, 4>, float, rows, cols>;
  auto* base = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  const MatrixRef<float> m{base, 5, 37, std::int64_t{1} << 40};
  using Wide = __int128;
  auto clamp = [](Wide x, int hi) { return static_cast<int>(x <= 0 ? 0 : (x >= hi ? hi : x)); };
  const std::int64_t origins[][2] = {{INT64_MIN, INT64_MIN},
                                     {INT64_MAX, 3},
                                     {-3, INT64_MAX},
                                     {1 << 24, 0},
                                     {-7, -15},
                                     {2, 30},
                                     {4, 36},
                                     {5, 0},
                                     {-8, 0},
                                     {0, -16},
                                     {-1, -1},
                                     {INT64_MIN + 1, 2}};
  for (const auto& o : origins) {
    CAPTURE(o[0]);
    CAPTURE(o[1]);
    const Window w = Window::make(m, o[0], o[1]);
    CHECK(w.row_lo == clamp(-Wide{o[0]}, rows));
    CHECK(w.row_hi == clamp(Wide{m.rows} - o[0], rows));
    CHECK(w.col_lo == clamp(-Wide{o[1]}, cols));
    CHECK(w.col_hi == clamp(Wide{m.cols} - o[1], cols));
    const auto address = static_cast<unsigned __int128>(reinterpret_cast<std::uintptr_t>(base)) +
                         static_cast<unsigned __int128>(Wide{o[0]} * m.ld + o[1]) * sizeof(float);
    CHECK(w.origin_address == static_cast<std::uintptr_t>(address));  // modulo 2^64
  }
  // Inside: the window is the exact intersection, and at() the element's address.
  const Window w = Window::make(m, -2, 30);
  CHECK(w.row_lo == 2);
  CHECK(w.row_hi == 7);
  CHECK(w.col_lo == 0);
  CHECK(w.col_hi == 7);
  CHECK(!w.empty());
  CHECK(w.at(2, 6) == &m(0, 36));
}
