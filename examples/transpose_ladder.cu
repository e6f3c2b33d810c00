// The transpose ladder: each rung of the course, then tilecraft, with its bandwidth.
//   1. naive               reads coalesced, writes with a stride of M elements
//   2. shared tile         both global accesses coalesced; the tile is read down a column:
//                          32-way bank conflicts
//   3. padded shared tile  tile[32][33]: conflict-free
//   4. tilecraft           SharedMatrix + copy_tile: 16-byte vectors, 64x64 tiles, any shape
// Usage: transpose_ladder [M N]   (default 8192 x 8192 floats)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tilecraft/device/transpose.cuh>

#include "course/transpose_course.cuh"
#include "example_util.cuh"

int main(int argc, char** argv) {
  if (!example::have_gpu("transpose_ladder")) return 0;
  const int rows = argc > 2 ? std::atoi(argv[1]) : 8192;
  const int cols = argc > 2 ? std::atoi(argv[2]) : 8192;
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<float>(i % 100003) + 0.5f;
  float *in = nullptr, *out = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&in, n * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, n * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<float> got(n);
  auto correct = [&] {
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        if (got[static_cast<std::size_t>(c) * rows + r] != h[static_cast<std::size_t>(r) * cols + c]) return false;
    return true;
  };
  const double bytes = 2.0 * n * sizeof(float);
  std::printf("%d x %d floats\n", rows, cols);
  auto rung = [&](const char* name, auto launch) {
    TILECRAFT_THROW_IF_ERROR(cudaMemset(out, 0xff, n * sizeof(float)));
    const double ms = example::time_ms(launch);
    example::report(name, ms, bytes, example::verdict(correct()));
  };
  const double copy_ms = example::time_ms(
      [&] { TILECRAFT_THROW_IF_ERROR(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
  example::report("cudaMemcpy of the same bytes", copy_ms, bytes, "(ceiling)");
  rung("1 naive", [&] {
    course::transpose_naive<<<course::transpose_grid(rows, cols), course::transpose_block()>>>(in, out, rows, cols);
  });
  rung("2 shared tile (32-way conflicts)", [&] {
    course::transpose_shared<float, 0>
        <<<course::transpose_grid(rows, cols), course::transpose_block()>>>(in, out, rows, cols);
  });
  rung("3 padded shared tile", [&] {
    course::transpose_shared<float, 1>
        <<<course::transpose_grid(rows, cols), course::transpose_block()>>>(in, out, rows, cols);
  });
  rung("4 tilecraft::transpose",
       [&] { TILECRAFT_THROW_IF_ERROR(tilecraft::transpose(in, cols, out, rows, rows, cols)); });
  TILECRAFT_THROW_IF_ERROR(cudaFree(in));
  TILECRAFT_THROW_IF_ERROR(cudaFree(out));
  return example::exit_status();
}
