#!/usr/bin/env bash
# The SIMT plan's cost of a K slice's partial sums (split_cost in detail/gemm_plan.cuh: a piece
# costs 1 / (2 k per_sm) of a round) after the split-K reduction became 1.7x faster (fifty-first
# session): the library against a copy whose pieces cost 1 / (RF k per_sm) (RF 3.4 by default), in
# one process (../gemm_old_new's harness: cuBLAS pedantic beside both, L2 flushed, medians of
# 15, each version's max error against cuBLAS), on the shapes whose plan that changes (host
# model: 1000 x 999 x 1001, 1300^3, 1600^3, 2048 x 1024 x 1400) and neighbours that keep theirs.
# On the GPU machine, from the repository root: bash benchmarks/experiments/gemm_reduce_cost/run.sh [RF]
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
rf=${1:-3.4}
rm -rf /tmp/reduce_cost && cp -r "$root/include" /tmp/reduce_cost
python3 - /tmp/reduce_cost/tilecraft/device/detail/gemm_plan.cuh "$rf" <<'PY'
import sys
p, rf = sys.argv[1], sys.argv[2]
s = open(p).read()
for old in ("pieces / (2.0 * kd * per_sm)", "static_cast<double>(tiles) / (2.0 * kd * per_sm)"):
    if s.count(old) != 1:
        sys.exit(f"run.sh: {old!r} found {s.count(old)} times")
    s = s.replace(old, old.replace("2.0", rf))
open(p, "w").write(s)
PY
cd ../gemm_old_new
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
mkdir -p bin
nvcc $F -I "$root/include" -Dtilecraft=tc_old -DFN=gemm_old -c lib.cu -o bin/rc_old.o &
nvcc $F -I /tmp/reduce_cost -Dtilecraft=tc_new -DFN=gemm_new -c lib.cu -o bin/rc_new.o &
nvcc $F -c prof.cu -o bin/rc_prof.o &
wait
nvcc $F bin/rc_old.o bin/rc_new.o bin/rc_prof.o -o bin/rc_prof -lcublas
echo "== old: the library; new: a piece of partial sums costs 1 / ($rf k per_sm) of a round"
for s in 1000x999x1001 1300x1300x1300 1600x1600x1600 2048x1024x1400 1200x1200x1200 1280x1280x1280 \
  1400x1400x1400 1025x1025x1025 1000x999x1001 1300x1300x1300 1600x1600x1600 2048x1024x1400; do
  bin/rc_prof ${s//x/ }
done
