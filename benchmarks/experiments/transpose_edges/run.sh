#!/usr/bin/env bash
# The default transpose against the course's padded policy (32 x 32, 128 threads) on ragged
# and aligned shapes, then Nsight Compute's kernel durations at 1 x 1 and 993 x 1005. About
# 40 s. On the GPU machine, from the repository root:
#   bash benchmarks/experiments/transpose_edges/run.sh
set -e
cd "$(dirname "$0")"
mkdir -p bin
nvcc -std=c++20 -O3 -arch=sm_90 -I ../../../include edges.cu -o bin/edges
bin/edges
ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size \
  -k regex:transpose -c 4 bin/edges 2>&1 | grep -E "transpose_tiles|duration|registers|grid_size" | head -24
