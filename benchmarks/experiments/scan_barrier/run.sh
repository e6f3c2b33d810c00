#!/usr/bin/env bash
# One-wave float scans (barrier.cu): the library's forms, its one-wave kernel rebuilt with one
# change at a time, the prototypes, CUB and memcpy. Not built by CMake. On the GPU machine, from
# the repository root: bash benchmarks/experiments/scan_barrier/run.sh [log2 n ...] (fractions
# allowed; default 20 21 21.58 22 22.32 22.58 23 23.5 24). NCU=1: each kernel's duration under
# Nsight Compute instead (medians over its launches, us), at the sizes given.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$root/build/scan_barrier"
bin="$root/build/scan_barrier/barrier"
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda -I "$root/include" \
  "$here/barrier.cu" -o "$bin"
if [ "${NCU:-0}" = 1 ]; then
  csv="$root/build/scan_barrier/ncu.csv"
  ncu --clock-control none --metrics gpu__time_duration.sum \
    -k 'regex:reg_variant|lib_variant|multi_wave|scan_one_wave|barrier_scan|DeviceScanKernel' --csv "$bin" "$@" >"$csv" 2>/dev/null
  python3 "$here/../ncu_durations.py" "$csv"
else
  "$bin" "$@"
fi
