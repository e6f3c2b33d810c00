#!/usr/bin/env bash
# One-wave float scans with a grid barrier (barrier.cu) beside the library's scan (single pass,
# and its two passes forced), CUB and memcpy. Not built by CMake. On the GPU machine, from the
# repository root: bash benchmarks/experiments/scan_barrier/run.sh [log2 n ...] (fractions
# allowed; default 20 21 21.58 22 22.04 22.32 22.58).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$root/build/scan_barrier"
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda -I "$root/include" \
  "$here/barrier.cu" -o "$root/build/scan_barrier/barrier"
"$root/build/scan_barrier/barrier" "$@"
