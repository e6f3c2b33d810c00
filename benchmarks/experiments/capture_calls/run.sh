#!/usr/bin/env bash
# Which runtime calls an open global-mode capture on another stream refuses (probe.cu). Not
# built by CMake. On the GPU machine, from the repository root:
# bash benchmarks/experiments/capture_calls/run.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$root/build/capture_calls"
nvcc -std=c++20 -O2 -arch=sm_90 "$here/probe.cu" -o "$root/build/capture_calls/probe"
"$root/build/capture_calls/probe"
