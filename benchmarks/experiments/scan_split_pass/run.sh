#!/usr/bin/env bash
# The single pass with split tiles (split_pass.cu) beside the library, CUB and memcpy. Not built
# by CMake. On the GPU machine, from the repository root:
# bash benchmarks/experiments/scan_split_pass/run.sh [log2 n ...] (default 23.5 24 24.5 25 26 27 28).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$root/build/scan_split_pass"
bin="$root/build/scan_split_pass/split_pass"
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda -Xptxas -v -I "$root/include" \
  "$here/split_pass.cu" -o "$bin" 2>&1 | grep -A1 "split_pass_kernel" | grep -E "registers|spill" | sort | uniq -c || true
"$bin" "$@"
