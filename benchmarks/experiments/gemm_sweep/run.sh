#!/usr/bin/env bash
# The FP32 goal of issue 21 (no product with M, N, K >= 1024 below 0.85x cuBLAS) beyond the
# benchmark's rows: the default gemm (row-major A, B, C; alpha 1, beta 0) against cuBLAS
# (pedantic FP32) on a sweep of shapes from 1024 to 4100 per side, 64 drawn with a fixed seed
# from sides that are whole tiles, odd, or one short of a tile, plus the benchmark's rows.
# ../gemm_old_new's harness (prof.cu) with one variant, the working tree's library: medians of
# 15 in two rounds, L2 flushed; a line per shape, its ratio last but one. About two minutes.
# On the GPU machine, from the repository root:
#   bash benchmarks/experiments/gemm_sweep/run.sh [MxNxK ...]
set -e
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../gemm_old_new"
root=$(cd ../../.. && pwd)
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
mkdir -p bin
nvcc $F -I "$root/include" -Dtilecraft=tc_new -DFN=gemm_new -c lib.cu -o bin/s_new.o &
nvcc $F '-DTC_VARIANTS=TC_VARIANT(new)' -c prof.cu -o bin/s_prof.o &
wait
nvcc $F bin/s_new.o bin/s_prof.o -o bin/s_prof -lcublas
shapes=${*:-$(python3 "$here/shapes.py" 2026 64 1025x1025x1025 1031x1029x1027 1200x1200x1200 1100x1300x1500 \
  1111x1333x1777 1600x1200x1400 1750x1750x1750 2047x2047x2047 4097x4095x4093)}
for s in $shapes; do bin/s_prof ${s//x/ }; done
