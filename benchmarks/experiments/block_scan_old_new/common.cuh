#pragma once
#include <cuda_runtime.h>
constexpr int rounds = 32;
// (index, type, threads, items): the rows of bench_scan.cu's block_scan families.
// clang-format off
#define SHAPES(X)                                                                              \
  X(0, float, 128, 1) X(1, float, 128, 4) X(2, float, 128, 16)                                \
  X(3, float, 256, 1) X(4, float, 256, 4) X(5, float, 256, 16)                                \
  X(6, float, 512, 1) X(7, float, 512, 4) X(8, float, 512, 16)                                \
  X(9, float, 1024, 1) X(10, float, 1024, 4) X(11, float, 1024, 16)                           \
  X(12, int, 256, 4) X(13, int, 1024, 4)
// clang-format on
void old_block_scan(int shape, int blocks, const void* in, void* out);
void new_block_scan(int shape, int blocks, const void* in, void* out);
