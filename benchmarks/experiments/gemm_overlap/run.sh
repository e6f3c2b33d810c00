#!/usr/bin/env bash
# The split-K reduction overlapped with the GEMM's last blocks (patch.py) against the library as
# it is, in one process (../gemm_old_new's harness: cuBLAS pedantic beside both, L2 flushed,
# medians of 15, each version's max error against cuBLAS), then the same with patch.py's
# memset-only variant (the counts zeroed and raised, the reduction still waiting for the whole
# grid: their cost alone), then every kernel of the overlapped product under Nsight Compute
# (--cache-control none) at 1200^3. About two minutes.
# On the GPU machine, from the repository root: bash benchmarks/experiments/gemm_overlap/run.sh [MxNxK ...]
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
for v in full memset-only; do
  rm -rf /tmp/overlap_$v && cp -r "$root/include" /tmp/overlap_$v
  python3 patch.py /tmp/overlap_$v $v
done
cd ../gemm_old_new
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
mkdir -p bin
nvcc $F -I "$root/include" -Dtilecraft=tc_old -DFN=gemm_old -c lib.cu -o bin/ov_old.o &
for v in full memset-only; do
  nvcc $F -I /tmp/overlap_$v -Dtilecraft=tc_new -DFN=gemm_new -c lib.cu -o bin/ov_$v.o &
done
nvcc $F -c prof.cu -o bin/ov_prof.o &
wait
for v in full memset-only; do
  nvcc $F bin/ov_old.o bin/ov_$v.o bin/ov_prof.o -o bin/ov_prof_$v -lcublas
done
for v in full memset-only; do
  echo "== old: the library; new: $v"
  for s in 1200x1200x1200 1100x1300x1500 1025x1025x1025 1000x999x1001 1024x1024x1024 1536x1536x1536 \
    128x8192x8192 64x8192x8192 1200x1200x1200 "${@}"; do
    bin/ov_prof_$v ${s//x/ }
  done
done
echo "== every kernel of the overlapped product, 1200^3 (Nsight Compute, --cache-control none)"
NOTIME=1 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum bin/ov_prof_full 1200 1200 1200 3 2>/dev/null |
  awk '/^  [a-zA-Z_].*\(/ { name = substr($0, 3) } /gpu__time_duration.sum/ { printf "  %-60s %8s %s\n", substr(name, 1, 60), $3, $2 }'
