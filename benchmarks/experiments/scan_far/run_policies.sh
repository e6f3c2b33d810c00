#!/usr/bin/env bash
# Builds and runs policies.cu on the GPU machine (about a minute). Arguments: the sizes' log2
# (default 26 28; `run_policies.sh 21 22 23` for the one-wave sizes, with smaller tiles).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" policies.cu -o /tmp/scan_far_policies
/tmp/scan_far_policies "$@"
