#!/usr/bin/env bash
# Builds ws.cu (a producer warp feeding 64 x 64 tiles through mbarriers, beside the same tile's
# usual ring, cuBLAS and the library's default) and runs it on the shapes the FP32 goal is
# furthest behind on, and two it meets: about a minute and a half on the GPU machine.
#   bash benchmarks/experiments/gemm_producer_warp/run.sh [M N K ...]
set -eo pipefail
cd "$(dirname "$0")"
rm -f /tmp/gemm_ws
nvcc -O3 -std=c++20 -arch=sm_90 -I../../../include ws.cu -o /tmp/gemm_ws -lcublas -Xptxas -v >/tmp/gemm_ws.log 2>&1 ||
  { tail -20 /tmp/gemm_ws.log; exit 1; }
# Each kernel's registers and spills (ptxas: the entry, its properties, spills, then registers).
awk '/Compiling entry function/ { name = ""; if (match($0, /gemm_(ws|sync)ILi[0-9]+ELi[0-9]+E(Li[0-9]+E)?/))
       name = substr($0, RSTART, RLENGTH) }
     name != "" && /spill stores/ { spill = $0; sub(/^ */, "", spill) }
     name != "" && /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/);
       print name ": " substr($0, RSTART, RLENGTH) ", " spill; name = "" }' /tmp/gemm_ws.log
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(1200 1200 1200 1111 1333 1777 1600 1200 1400 1750 1750 1750 1100 1300 1500
  1500 1200 1000 1200 1600 800 1024 1024 1024 2048 2048 2048)
/tmp/gemm_ws "${shapes[@]}"
