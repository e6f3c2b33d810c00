#!/usr/bin/env bash
# Where a product's time goes between its kernels, with the caches as the benchmark leaves them:
# Nsight Compute on the new library's default gemm (prof NOTIME=1, 5 products), every kernel of
# each product (packing, the GEMM, the split-K reduction), --cache-control none (no flush
# between kernels, so the reduction reads the slices from L2 as it does in a timed run; the
# tables of "1200^3 against every lever left" flushed before each kernel) and --clock-control
# none (the benchmarks' clocks). Prints each kernel's name and duration, then the sum against
# the event-timed product from a plain run. About a minute for three shapes.
# On the GPU machine, from the repository root (builds bin/prof with run.sh first where it is
# missing, the working tree's library as both its old and new version):
#   bash benchmarks/experiments/gemm_old_new/run_ncu_kernels.sh 1200x1200x1200 1025x1025x1025 1100x1300x1500
cd "$(dirname "$0")" || exit 1
if [ ! -x bin/prof ]; then
  [ -d old/include ] || { mkdir -p old && cp -r ../../../include old/; }
  NEWINC=../../../include bash run.sh || exit 1
fi
for s in "$@"; do
  echo "== $s"
  bin/prof ${s//x/ } | tail -3
  NOTIME=1 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum \
    bin/prof ${s//x/ } 5 2>/dev/null |
    awk '/^  [a-zA-Z_].*\(/ { name = substr($0, 3) } /gpu__time_duration.sum/ { printf "  %-60s %8s %s\n", substr(name, 1, 60), $3, $2 }'
done
