#!/usr/bin/env bash
# On the GPU machine, from the repository root: bash benchmarks/experiments/scan_pipelined/run.sh [n ...]
# (the working tree's include/; sm_90a). n: multiples of 8192 (the prototype's largest tile).
cd "$(dirname "$0")" || exit 1
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda -I ../../../include scan_pipelined.cu \
  -o /tmp/scan_pipelined || exit 1
# (a protocol bug would hang the GPU: give up after two minutes)
timeout 120 /tmp/scan_pipelined "$@"
