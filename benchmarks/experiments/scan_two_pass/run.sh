#!/usr/bin/env bash
# Mid-size float scans in two passes (the second reading the input from L2) beside the
# library's single-pass scan, CUB and memcpy (two_pass.cu). Not built by CMake. On the GPU
# machine, from the repository root: bash benchmarks/experiments/scan_two_pass/run.sh [log2 n ...]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$root/build/scan_two_pass"
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda -I "$root/include" \
  "$here/two_pass.cu" -o "$root/build/scan_two_pass/two_pass"
"$root/build/scan_two_pass/two_pass" "$@"
