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
shapes=${*:-$(python3 - <<'PY'
import random
r = random.Random(2026)
sides = [1024, 1025, 1031, 1100, 1152, 1200, 1280, 1333, 1400, 1500, 1536, 1600, 1750, 1800,
         1999, 2000, 2047, 2048, 2300, 2500, 2560, 3000, 3001, 3333, 4095, 4096, 4100]
rows = set()
while len(rows) < 64:
    rows.add(tuple(r.choice(sides) for _ in range(3)))
bench = [(1025, 1025, 1025), (1031, 1029, 1027), (1200, 1200, 1200), (1100, 1300, 1500),
         (1111, 1333, 1777), (1600, 1200, 1400), (1750, 1750, 1750), (2047, 2047, 2047),
         (4097, 4095, 4093)]
print(" ".join("x".join(map(str, s)) for s in bench + sorted(rows)))
PY
)}
for s in $shapes; do bin/s_prof ${s//x/ }; done
