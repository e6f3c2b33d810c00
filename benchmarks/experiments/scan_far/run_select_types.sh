#!/usr/bin/env bash
# Builds and runs select_types.cu on the GPU machine (about a minute).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" select_types.cu -o /tmp/select_types
/tmp/select_types
