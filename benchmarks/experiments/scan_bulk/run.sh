#!/usr/bin/env bash
# Builds and runs copy.cu on the GPU machine (about a minute).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" copy.cu -o /tmp/scan_bulk_copy
/tmp/scan_bulk_copy
