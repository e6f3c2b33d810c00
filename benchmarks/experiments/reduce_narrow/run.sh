#!/usr/bin/env bash
# On the GPU machine, from the repository root: bash benchmarks/experiments/reduce_narrow/run.sh [n ...]
# (the working tree's include/; sm_90).
cd "$(dirname "$0")" || exit 1
nvcc -std=c++20 -O3 -arch=sm_90 -I ../../../include reduce_narrow.cu -o /tmp/reduce_narrow || exit 1
/tmp/reduce_narrow "$@"
