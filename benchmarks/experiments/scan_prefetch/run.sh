#!/usr/bin/env bash
# Builds and runs ahead.cu on the GPU machine (about a minute).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 --extended-lambda -I"$root/include" ahead.cu -o /tmp/scan_ahead
/tmp/scan_ahead
