// tilecraft::transpose against a host reference: odd shapes, both element widths, padded
// leading dimensions, misaligned pointers, on a stream; elements outside the output matrix
// (leading-dimension padding) must stay untouched.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <tilecraft/device/transpose.cuh>

#include "test_util.cuh"

using tilecraft::test::DeviceBuffer;

// Launches the default tilecraft::transpose, or the kernel with another policy.
template <class T, class Policy>
cudaError_t run_transpose(const T* in, std::int64_t ld_in, T* out, std::int64_t ld_out, std::int64_t rows,
                          std::int64_t cols, cudaStream_t stream) {
  if constexpr (std::is_void_v<Policy>) {
    return tilecraft::transpose(in, ld_in, out, ld_out, rows, cols, stream);
  } else {
    return tilecraft::transpose<Policy>(in, ld_in, out, ld_out, rows, cols, stream);
  }
}

template <class T, class Policy = void>
void check_transpose(std::int64_t rows, std::int64_t cols, std::int64_t pad_in, std::int64_t pad_out,
                     std::int64_t offset, std::uint64_t salt) {
  CAPTURE(rows);
  CAPTURE(cols);
  CAPTURE(pad_in);
  CAPTURE(pad_out);
  CAPTURE(offset);
  const std::int64_t ld_in = cols + pad_in, ld_out = rows + pad_out;
  const auto host = tilecraft::test::random_vector<T>(static_cast<std::size_t>(offset + rows * ld_in), -1e6, 1e6, salt);
  DeviceBuffer<T> in(host);
  DeviceBuffer<T> out(static_cast<std::size_t>(offset + cols * ld_out));
  out.poison();
  const tilecraft::test::Stream stream;
  CHECK(run_transpose<T, Policy>(in.get() + offset, ld_in, out.get() + offset, ld_out, rows, cols, stream) ==
        cudaSuccess);
  stream.synchronize();
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  const T poison = tilecraft::test::poison_value<T>();
  std::int64_t bad = 0;
  for (std::int64_t c = 0; c < cols; ++c) {
    for (std::int64_t r = 0; r < ld_out; ++r) {
      const T& g = got[static_cast<std::size_t>(offset + c * ld_out + r)];
      const T& want = r < rows ? host[static_cast<std::size_t>(offset + r * ld_in + c)] : poison;
      bad += std::memcmp(&g, &want, sizeof(T)) != 0;
    }
  }
  for (std::int64_t i = 0; i < offset; ++i)
    bad += std::memcmp(&got[static_cast<std::size_t>(i)], &poison, sizeof(T)) != 0;
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("transpose matches the host reference on odd shapes", T, float, double, int, long long) {
  const std::int64_t shapes[][2] = {{1, 1},    {1, 1000},   {1000, 1},  {31, 33},   {33, 31}, {64, 64},
                                    {65, 129}, {1000, 999}, {4097, 63}, {63, 4097}, {2, 3}};
  std::uint64_t salt = 100;
  for (const auto& s : shapes) {
    check_transpose<T>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T>(s[0], s[1], 5, 3, 0, ++salt);  // padded leading dimensions
    check_transpose<T>(s[0], s[1], 0, 0, 1, ++salt);  // misaligned: no 16-byte vectors
  }
}

TEST_CASE("transpose of more tile rows than a grid's y dimension holds") {
  // 2^22 + 1 rows: 65537 tile rows of 64 (float) and 131073 of 32 (double) past the 65535 of
  // grid y: grids of 2 and 3 layers in z, most of the last layer's blocks without a tile.
  check_transpose<float>((std::int64_t{1} << 22) + 1, 1, 0, 0, 0, 900);
  if (!tilecraft::test::sanitizer_sized()) check_transpose<double>((std::int64_t{1} << 22) + 1, 3, 0, 2, 1, 901);
}

TEST_CASE_TEMPLATE("user policies: layouts, mappings, cache hints, register caps", T, float, double) {
  using tilecraft::CacheHint;
  using tilecraft::Padded;
  using tilecraft::TileCopy;
  using tilecraft::TileMapping;
  using tilecraft::TransposePolicy;
  using Swizzle = tilecraft::Swizzled<16, static_cast<int>(16 / sizeof(T))>;
  using Lines = TileCopy<>;
  using Rows = TileCopy<CacheHint::normal, TileMapping::rows>;
  using Wide = TileCopy<CacheHint::normal, TileMapping::wide>;
  using Blocks = TileCopy<CacheHint::normal, TileMapping::transposed_blocks>;
  using Stream = TileCopy<CacheHint::streaming>;
  using Narrow = TransposePolicy<T, 32, 32, 128, Padded<1>, Lines>;
  using Streaming = TransposePolicy<T, 32, 32, 128, Padded<1>, Stream>;
  using WideStreaming = TransposePolicy<T, 64, 64, 256, Padded<1>, Stream, Stream, 2>;  // register cap
  // One warp instruction per tile row (the 8-byte default), and for 4-byte elements too.
  using RowMapped = TransposePolicy<T, 32, 32, 128, Padded<1>, Rows>;
  using RowsCapped = TransposePolicy<T, 32, 32, 64, Padded<1>, Rows, Rows, 8>;
  // Register-transposed blocks out of a swizzled tile (the 4-byte default), with a thread count
  // that does not divide the tile (no compile-time vector offsets, idle threads in the drain),
  // and with a register cap.
  using BlockDrain = TransposePolicy<T, 32, 32, 128, Swizzle, Wide, Blocks>;
  using BlockDrain96 = TransposePolicy<T, 32, 32, 96, Swizzle, Wide, Blocks>;
  using BlocksCapped = TransposePolicy<T, 64, 32, 64, Swizzle, Wide, Blocks, 4>;
  const std::int64_t shapes[][2] = {{1, 1}, {31, 33}, {1000, 999}, {4097, 63}, {63, 4097}, {2048, 2048}, {200, 130}};
  std::uint64_t salt = 900;
  for (const auto& s : shapes) {
    check_transpose<T, Narrow>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, Streaming>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, Streaming>(s[0], s[1], 2, 1, 1, ++salt);
    check_transpose<T, WideStreaming>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, RowMapped>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, RowMapped>(s[0], s[1], 1, 2, 1, ++salt);
    check_transpose<T, RowsCapped>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, RowsCapped>(s[0], s[1], 3, 0, 1, ++salt);
    check_transpose<T, BlockDrain>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, BlockDrain>(s[0], s[1], 5, 3, 1, ++salt);
    check_transpose<T, BlockDrain96>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, BlockDrain96>(s[0], s[1], 2, 1, 1, ++salt);
    check_transpose<T, BlocksCapped>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, BlocksCapped>(s[0], s[1], 1, 4, 0, ++salt);
  }
}

TEST_CASE("transpose of an empty matrix launches nothing and succeeds") {
  DeviceBuffer<float> out(4);
  out.poison();
  CHECK(tilecraft::transpose(static_cast<const float*>(nullptr), 1, out.get(), 4, 0, 4) == cudaSuccess);
  tilecraft::test::sync_and_check();
  for (float v : out.download()) CHECK(std::memcmp(&v, "\xA5\xA5\xA5\xA5", 4) == 0);
}
