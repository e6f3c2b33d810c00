#!/usr/bin/env bash
# Scans past one wave in rounds of grid barriers (rounds.cu), beside the library's default
# dispatch, CUB and memcpy. Not built by CMake. On the GPU machine, from the repository root:
# bash benchmarks/experiments/scan_rounds/run.sh [log2 n ...] (fractions allowed; default 22
# 22.58 23 23.5 24 25 26 27 28). NCU=1: each kernel's duration under Nsight Compute instead
# (medians over its launches), at the sizes given.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$root/build/scan_rounds"
bin="$root/build/scan_rounds/rounds"
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda -Xptxas -v -I "$root/include" \
  "$here/rounds.cu" -o "$bin" 2>"$root/build/scan_rounds/ptxas.txt" || {
  cat "$root/build/scan_rounds/ptxas.txt"
  exit 1
}
grep -A3 "Compiling entry.*rounds_scan" "$root/build/scan_rounds/ptxas.txt" | grep -E "rounds_scan|Used|spill" || true
if [ "${NCU:-0}" = 1 ]; then
  ncu --clock-control none --metrics gpu__time_duration.sum -k 'regex:rounds|scan_kernel|scan_one_wave|DeviceScanKernel' \
    --csv "$bin" "$@" 2>/dev/null | python3 "$here/../ncu_durations.py"
else
  "$bin" "$@"
fi
