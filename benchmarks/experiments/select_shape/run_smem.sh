#!/usr/bin/env bash
# Builds and runs smem.cu on the GPU machine (about a minute).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 --extended-lambda -Xptxas -v -I"$root/include" smem.cu -o /tmp/select_smem 2>&1 |
  grep -A1 "sel_smem" | grep -o "Used [0-9]* registers.*" || true
/tmp/select_smem
