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
  "$here/rounds.cu" -o "$bin" 2>"$root/build/scan_rounds/ptxas.txt"
grep -A2 "Compiling entry.*rounds_scan" "$root/build/scan_rounds/ptxas.txt" | grep -E "Used|spill" || true
if [ "${NCU:-0}" = 1 ]; then
  ncu --clock-control none --metrics gpu__time_duration.sum -k 'regex:rounds_scan|scan_kernel|scan_one_wave|DeviceScanKernel' \
    --csv "$bin" "$@" 2>/dev/null | python3 -c '
import csv, sys, collections, statistics
rows = [r for r in csv.reader(sys.stdin) if len(r) > 10]
head, body = rows[0], rows[1:]
k, v, u = head.index("Kernel Name"), head.index("Metric Value"), head.index("Metric Unit")
t = collections.defaultdict(list)
for r in body:
    scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}.get(r[u], 1.0)
    t[r[k][:90]].append(float(r[v].replace(",", "")) * scale)
for name, xs in t.items():
    print(f"{statistics.median(xs):9.2f} us  (n={len(xs)})  {name}")
'
else
  "$bin" "$@"
fi
