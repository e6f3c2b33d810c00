#!/usr/bin/env bash
# Builds and runs policy.cu on the GPU machine (about a minute).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 --extended-lambda -I"$root/include" policy.cu -o /tmp/scan_policy
/tmp/scan_policy
