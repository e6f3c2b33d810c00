#!/usr/bin/env bash
# Builds and runs hints.cu on the GPU machine (about a minute).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" hints.cu -o /tmp/scan_hints
/tmp/scan_hints
