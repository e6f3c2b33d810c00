#!/usr/bin/env bash
# Builds ws.cu (a producer warp feeding 64 x 64 tiles through mbarriers, beside the same tile's
# usual ring, cuBLAS and the library's default) and runs it on the shapes the FP32 goal is
# furthest behind on, and two it meets: about a minute and a half on the GPU machine.
#   bash benchmarks/experiments/gemm_producer_warp/run.sh [M N K ...]
set -e
cd "$(dirname "$0")"
nvcc -O3 -std=c++20 -arch=sm_90 -I../../../include ws.cu -o /tmp/gemm_ws -lcublas -Xptxas -v 2>&1 |
  grep -A2 -E "Compiling entry function '.*gemm_(ws|sync)" | grep -E 'registers|spill' | sort | uniq -c
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(1200 1200 1200 1111 1333 1777 1600 1200 1400 1750 1750 1750 1100 1300 1500
  1500 1200 1000 1200 1600 800 1024 1024 1024 2048 2048 2048)
/tmp/gemm_ws "${shapes[@]}"
