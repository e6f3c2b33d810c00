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
cudaError_t run_transpose(T* out, std::int64_t ld_out, const T* in, std::int64_t ld_in, std::int64_t rows,
                          std::int64_t cols, cudaStream_t stream) {
  if constexpr (std::is_void_v<Policy>) {
    return tilecraft::transpose(out, ld_out, in, ld_in, rows, cols, stream);
  } else {
    return tilecraft::detail::transpose_with<Policy>(out, ld_out, in, ld_in, rows, cols, stream);
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
  cudaStream_t stream;
  TILECRAFT_THROW_IF_ERROR(cudaStreamCreate(&stream));
  CHECK(run_transpose<T, Policy>(out.get() + offset, ld_out, in.get() + offset, ld_in, rows, cols, stream) ==
        cudaSuccess);
  TILECRAFT_THROW_IF_ERROR(cudaStreamSynchronize(stream));
  TILECRAFT_THROW_IF_ERROR(cudaStreamDestroy(stream));
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

TEST_CASE_TEMPLATE("persistent, narrow, streaming and row-mapped kernel policies", T, float, double) {
  // One block per multiprocessor: every block loops over many tiles, prefetching the next.
  using Persistent = tilecraft::detail::TransposePolicy<T, 32, 32, 128, true, 1>;
  using Narrow = tilecraft::detail::TransposePolicy<T, 32, 32, 128, false>;
  using Streaming = tilecraft::detail::TransposePolicy<T, 32, 32, 128, false, 8,
                                                       tilecraft::TileCopy<tilecraft::CacheHint::streaming>>;
  using WideStreaming =
      tilecraft::detail::TransposePolicy<T, 64, 64, 256, true, 2, tilecraft::TileCopy<tilecraft::CacheHint::streaming>>;
  // One warp instruction per tile row (the 8-byte default), and for 4-byte elements too.
  using Rows = tilecraft::detail::TransposePolicy<
      T, 32, 32, 128, false, 8, tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::rows>>;
  // Wider row-mapped tiles would conflict in shared memory (the policy's static_assert says
  // so); a persistent grid exercises the row mapping with prefetch instead.
  using PersistentRows = tilecraft::detail::TransposePolicy<
      T, 32, 32, 64, true, 2, tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::rows>>;
  const std::int64_t shapes[][2] = {{1, 1}, {31, 33}, {1000, 999}, {4097, 63}, {63, 4097}, {2048, 2048}, {200, 130}};
  std::uint64_t salt = 900;
  for (const auto& s : shapes) {
    check_transpose<T, Persistent>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, Persistent>(s[0], s[1], 3, 1, 1, ++salt);
    check_transpose<T, Narrow>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, Streaming>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, Streaming>(s[0], s[1], 2, 1, 1, ++salt);
    check_transpose<T, WideStreaming>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, Rows>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, Rows>(s[0], s[1], 1, 2, 1, ++salt);
    check_transpose<T, PersistentRows>(s[0], s[1], 0, 0, 0, ++salt);
    check_transpose<T, PersistentRows>(s[0], s[1], 3, 0, 1, ++salt);
  }
}

TEST_CASE("transpose of an empty matrix launches nothing and succeeds") {
  DeviceBuffer<float> out(4);
  out.poison();
  CHECK(tilecraft::transpose(out.get(), 4, static_cast<const float*>(nullptr), 1, 0, 4) == cudaSuccess);
  tilecraft::test::sync_and_check();
  for (float v : out.download()) CHECK(std::memcmp(&v, "\xA5\xA5\xA5\xA5", 4) == 0);
}
