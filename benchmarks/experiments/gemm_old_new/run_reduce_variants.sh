#!/usr/bin/env bash
# Split-K reduction variants (thirty-first-session style A/B): copies of the working tree's
# include with SplitReduceShape's vectors / batch changed, each against the library in old/
# (HEAD's, from git archive) in one process; old.o and prof.o are built once.
# On the GPU machine: bash benchmarks/experiments/gemm_old_new/run_reduce_variants.sh
cd "$(dirname "$0")" || exit 1
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
shapes="1200x1200x1200 1100x1300x1500 1025x1025x1025 1000x999x1001 1536x1536x1536 1200x1200x1200"
mkdir -p bin
nvcc $F -I old/include -Dtilecraft=tc_old -DFN=gemm_old -c lib.cu -o bin/old.o &
nvcc $F -c prof.cu -o bin/prof.o &
for v in "2 4" "4 4" "1 4" "4 2"; do
  set -- $v
  d=/tmp/var_$1_$2; rm -rf $d; cp -r ../../../include $d
  sed -i "s/static constexpr int vectors = 2;/static constexpr int vectors = $1;/; s/static constexpr int batch = 4;/static constexpr int batch = $2;/" $d/tilecraft/device/detail/gemm_kernels.cuh
  grep -q "vectors = $1;" $d/tilecraft/device/detail/gemm_kernels.cuh || { echo "patch failed"; exit 1; }
  nvcc $F -I $d -Dtilecraft=tc_new -DFN=gemm_new -c lib.cu -o bin/new_$1_$2.o &
done
wait
for v in "2 4" "4 4" "1 4" "4 2"; do
  set -- $v
  echo "== vectors $1 batch $2"
  nvcc $F bin/old.o bin/new_$1_$2.o bin/prof.o -o bin/prof_$1_$2 -lcublas || exit 1
  for s in $shapes; do bin/prof_$1_$2 ${s//x/ }; done
done
