#!/usr/bin/env bash
# Builds phases.cu against a copy of the library with phase timers in the scan kernel
# (instrument.py) and runs it on the GPU machine: where the two-pass tile's 13-14 us go at
# 2^28 (0.886x memcpy; the bare tile copy takes 12.7 us a tile, "One bulk prefetch a tile" in
# benchmarks/TUNING.md) and at 2^22, where the scan reads 0.99x CUB. About half a minute.
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
rm -rf /tmp/phases_inc && cp -r "$root/include" /tmp/phases_inc
python3 instrument.py /tmp/phases_inc
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/phases_inc phases.cu -o /tmp/scan_phases
/tmp/scan_phases "$@"
