#!/usr/bin/env bash
# The split region of the default plan (C with fewer 128 x 128 tiles than 1.6 x the SMs, K <
# 2048) measured policy by policy: every SIMT policy forced (its own split plan: split_k_plan,
# K steps dealt out where that pays) on a grid of shapes around 1200^3, beside the default
# plan and cuBLAS (pedantic FP32), to fit choose_default's split_paces on more than the four
# shapes of ../gemm_policies_1200 (where 64 x 128 tiles ran 1200^3 2-3% faster than the 64 x 64
# ones the plan chose). ../gemm_old_new's harness: old = the default plan, new = the policy
# forced; medians of 15, L2 flushed. About two minutes. On the GPU machine, from the repository
# root:
#   bash benchmarks/experiments/gemm_policies_grid/run.sh [MxNxK ...]
set -e
cd "$(dirname "$0")/../gemm_old_new"
root=$(cd ../../.. && pwd)
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
policies="Large Skinny Medium Small"
mkdir -p bin
nvcc $F -I "$root/include" -Dtilecraft=tc_old -DFN=gemm_old -c lib.cu -o bin/g_old.o &
for p in $policies; do
  nvcc $F -I "$root/include" -Dtilecraft=tc_new -DFN=gemm_new -DTC_POLICY=tilecraft::GemmPolicy$p -c lib.cu \
    -o bin/g_$p.o &
done
nvcc $F -c prof.cu -o bin/g_prof.o &
wait
for p in $policies; do nvcc $F bin/g_old.o bin/g_$p.o bin/g_prof.o -o bin/g_prof_$p -lcublas & done
wait
shapes=${*:-1024x1024x1024 1100x1100x1100 1152x1152x1152 1200x1200x1200 1250x1250x1250 1300x1300x1300
  1400x1400x1400 1500x1500x1500 1600x1600x1600 1700x1700x1700 1100x1300x1500 2048x1024x1400
  1024x2048x1024 1200x1200x1900 1280x1280x1280 1024x1024x1800 1500x1200x1000 1031x1029x1027
  1536x1536x1536 1800x1000x1200}
for p in $policies; do
  echo "== old: the default plan; new: GemmPolicy$p forced"
  for s in $shapes; do bin/g_prof_$p ${s//x/ }; done
done
