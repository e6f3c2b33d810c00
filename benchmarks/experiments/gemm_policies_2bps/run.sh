#!/usr/bin/env bash
# cuBLAS's shape at the shapes where the library is furthest behind: at 1600 x 1200 x 1400 it
# runs 128 x 64 x 8 tiles of 4 warps with 224 registers a thread (2 blocks an SM, K whole). The
# library's 64 x 128 tiles (GemmPolicySkinny) hold 4 blocks an SM, so at most 128 registers.
# Forced here, each with its own split plan, beside the default plan and cuBLAS (pedantic FP32):
#   W2: 64 x 128, 8 x 8 a thread, K step 16, 4 stages, 2 blocks an SM (up to 255 registers)
#   T2: 128 x 64, the same otherwise
# ../gemm_old_new's harness (old = the default plan, new = the policy forced; medians of 15, L2
# flushed). About two minutes. On the GPU machine, from the repository root:
#   bash benchmarks/experiments/gemm_policies_2bps/run.sh [MxNxK ...]
# POLICIES="T2" (environment) forces only those of the policies below.
set -e
cd "$(dirname "$0")/../gemm_old_new"
root=$(cd ../../.. && pwd)
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
declare -A policy=(
  [W2]="tilecraft::GemmPolicy<64, 128, tilecraft::RegBlock<8, 8>, 16, 4, 4, 2>"
  [T2]="tilecraft::GemmPolicy<128, 64, tilecraft::RegBlock<8, 8>, 16, 4, 4, 2>"
)
names=${POLICIES:-${!policy[@]}}
for p in $names; do [ -n "${policy[$p]:-}" ] || { echo "unknown policy $p"; exit 1; }; done
mkdir -p bin
nvcc $F -I "$root/include" -Dtilecraft=tc_old -DFN=gemm_old -c lib.cu -o bin/g_old.o &
for p in $names; do
  # (nvcc splits a -D value at its commas: the policy comes through a forced include.)
  echo "#define TC_POLICY ${policy[$p]}" >bin/policy_$p.h
  nvcc $F -I "$root/include" -Dtilecraft=tc_new -DFN=gemm_new -include "bin/policy_$p.h" -c lib.cu -o bin/g_$p.o &
done
nvcc $F -c prof.cu -o bin/g_prof.o &
wait
for p in $names; do nvcc $F bin/g_old.o bin/g_$p.o bin/g_prof.o -o bin/g_prof_$p -lcublas & done
wait
for p in $names; do cuobjdump -res-usage bin/g_prof_$p 2>/dev/null | grep -A1 "tc_new.*gemm" | grep -o "REG:[0-9]*" | sort | uniq -c | head -3; done
shapes=${*:-1111x1333x1777 1600x1200x1400 1200x1200x1200 1750x1750x1750 1100x1300x1500 2048x2048x2048}
for p in $names; do
  echo "== old: the default plan; new: $p (${policy[$p]}) forced"
  for s in $shapes; do bin/g_prof_$p ${s//x/ }; done
done
