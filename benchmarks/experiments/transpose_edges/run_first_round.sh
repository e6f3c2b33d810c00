#!/usr/bin/env bash
# The default transpose's first rounds after other launchers, each case in a fresh process
# (first_round.cu). About a minute. On the GPU machine, from the repository root:
#   bash benchmarks/experiments/transpose_edges/run_first_round.sh
set -e
cd "$(dirname "$0")"
mkdir -p bin
nvcc -std=c++20 -O3 -arch=sm_90 -I ../../../include first_round.cu -o bin/first_round
for steps in "" "reduce" "scan" "histogram" "stencil" "reduce scan histogram stencil" \
             "carveout reduce scan histogram stencil"; do
  echo "== after: ${steps:-nothing}"
  bin/first_round $steps
done
echo "== after every launcher, CUDA_MODULE_LOADING=EAGER"
CUDA_MODULE_LOADING=EAGER bin/first_round reduce scan histogram stencil
