#!/usr/bin/env bash
# The tensor-core maths' side of issue 21's last-wave clause (no product with M, N, K >= 1024
# below 0.85x cuBLAS, in every math): tensor.cu on the shapes given (MxNxK) or, by default, the
# shapes the sixteen-bit tuning singled out and 28 drawn with a fixed seed from the FP32 sweep's
# sides, each in all four layouts. Builds the library's instance units (sm_90a, in parallel)
# beside tensor.cu: about a minute and a half of build, then well under a second a shape.
# TC_VARIANTS (default "tree:include"): name:include-folder pairs, relative to the repository
# root, one binary each, all built at once and run shape by shape one after the other (a
# library change against main: "main:build/tc_main/include tree:include", after
# `git archive HEAD include | tar x -C build/tc_main` on a clean main).
# On the GPU machine, from the repository root:
#   bash benchmarks/experiments/gemm_sweep/run_tensor.sh [MxNxK ...]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
variants=${TC_VARIANTS:-tree:include}
for v in $variants; do
  name=${v%%:*} inc=$root/${v#*:}
  bin="$root/build/gemm_sweep_tensor/$name"
  mkdir -p "$bin"
  F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda -I $inc"
  for u in bf16 f16 tf32; do
    nvcc $F -c "$root/tests/support/gemm_instance_$u.cu" -o "$bin/instance_$u.o" &
  done
  nvcc $F -c "$here/tensor.cu" -o "$bin/tensor.o" &
done
wait
for v in $variants; do
  bin="$root/build/gemm_sweep_tensor/${v%%:*}"
  nvcc -gencode arch=compute_90a,code=sm_90a "$bin"/*.o -o "$bin/tensor" -lcublas &
done
wait
shapes=${*:-$(python3 - <<'PY'
import random
r = random.Random(2027)
sides = [1024, 1025, 1031, 1100, 1152, 1200, 1280, 1333, 1400, 1500, 1536, 1600, 1750, 1800,
         1999, 2000, 2047, 2048, 2300, 2500, 2560, 3000, 3001, 3333, 4095, 4096, 4100]
rows = set()
while len(rows) < 28:
    rows.add(tuple(r.choice(sides) for _ in range(3)))
named = [(1024, 1024, 1024), (1536, 1536, 1536), (1024, 1024, 4096), (1024, 1024, 8192),
         (2048, 1024, 1024), (1536, 1536, 4096), (2304, 2304, 2304), (1536, 2304, 1536),
         (1000, 999, 1001), (2047, 2047, 2047), (3072, 3072, 3072), (4096, 4096, 4096)]
print(" ".join("x".join(map(str, s)) for s in named + sorted(rows)))
PY
)}
header=1
for s in $shapes; do
  for v in $variants; do
    TC_NAME=${v%%:*} TC_HEADER=$header "$root/build/gemm_sweep_tensor/${v%%:*}/tensor" "$s"
    header=0
  done
done
