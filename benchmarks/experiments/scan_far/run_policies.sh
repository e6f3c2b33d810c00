#!/usr/bin/env bash
# Builds and runs policies.cu on the GPU machine (about a minute). Arguments: the sizes' log2,
# fractions allowed (default 26 28; `run_policies.sh 23.5 24 24.5` for the single pass just past
# one wave, with smaller tiles too).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" policies.cu -o /tmp/scan_far_policies
/tmp/scan_far_policies "$@"
