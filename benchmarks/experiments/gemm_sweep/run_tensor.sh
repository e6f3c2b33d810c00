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
shapes=${*:-$(python3 "$here/shapes.py" 2027 28 1024x1024x1024 1536x1536x1536 1024x1024x4096 1024x1024x8192 \
  2048x1024x1024 1536x1536x4096 2304x2304x2304 1536x2304x1536 1000x999x1001 2047x2047x2047 3072x3072x3072 \
  4096x4096x4096)}
header=1
for s in $shapes; do
  for v in $variants; do
    TC_NAME=${v%%:*} TC_HEADER=$header "$root/build/gemm_sweep_tensor/${v%%:*}/tensor" "$s"
    header=0
  done
done
