#!/usr/bin/env bash
# 1200^3 (the one benchmarked FP32 shape under 0.85x cuBLAS) with each SIMT policy forced, now
# that the split-K reduction is 1.7x faster (fifty-first session): the default plan (64 x 64
# tiles, K steps dealt to 528 blocks) was chosen against a slower reduction, and in the
# fifty-second session 1300^3 gained 4% when the plan moved it to 128 x 128 tiles dealt
# ("The plan's cost of a slice's partial sums", benchmarks/TUNING.md). ../gemm_old_new's
# harness (cuBLAS pedantic beside both, L2 flushed, medians of 15, max errors against cuBLAS):
# old = the library's default plan, new = the library with TC_POLICY forced (the policy's own
# split plan by split_k_plan), and once more without dealt K steps (TC_NO_DEAL: equal slices).
# About two minutes. On the GPU machine, from the repository root:
#   bash benchmarks/experiments/gemm_policies_1200/run.sh [MxNxK ...]
set -e
cd "$(dirname "$0")/../gemm_old_new"
root=$(cd ../../.. && pwd)
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
mkdir -p bin
nvcc $F -I "$root/include" -Dtilecraft=tc_old -DFN=gemm_old -c lib.cu -o bin/p_old.o &
for p in Large Skinny Medium Small; do
  nvcc $F -I "$root/include" -Dtilecraft=tc_new -DFN=gemm_new -DTC_POLICY=tilecraft::GemmPolicy$p -c lib.cu \
    -o bin/p_$p.o &
  nvcc $F -I "$root/include" -Dtilecraft=tc_new -DFN=gemm_new -DTC_POLICY=tilecraft::GemmPolicy$p -DTC_NO_DEAL \
    -c lib.cu -o bin/p_${p}_nodeal.o &
done
nvcc $F -c prof.cu -o bin/p_prof.o &
wait
for v in Large Skinny Medium Small Large_nodeal Skinny_nodeal Medium_nodeal Small_nodeal; do
  nvcc $F bin/p_old.o bin/p_$v.o bin/p_prof.o -o bin/p_prof_$v -lcublas &
done
wait
shapes=${*:-1200x1200x1200 1100x1300x1500 1025x1025x1025 1000x999x1001}
for v in Large Skinny Medium Small Large_nodeal Skinny_nodeal Medium_nodeal Small_nodeal; do
  echo "== old: the default plan; new: GemmPolicy$v forced"
  for s in $shapes; do bin/p_prof_$v ${s//x/ }; done
done
