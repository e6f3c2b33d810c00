#!/usr/bin/env bash
# Builds zeroing.cu against the library and against a copy whose grid the samples alone size
# (before be9ebec), and runs both: about 30 s on the GPU machine.
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
old=/tmp/zeroing_old
rm -rf "$old" && cp -r "$root/include" "$old"
f=$old/tilecraft/device/detail/histogram_dispatch.cuh
sed -i 's/const std::int64_t zeroing = Shared ? 1 : .*;/const std::int64_t zeroing = 1;/' "$f"
cmp -s "$f" "$root/include/tilecraft/device/detail/histogram_dispatch.cuh" && { echo "the patch did not apply"; exit 1; }
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" zeroing.cu -o /tmp/zeroing_new &
nvcc -O3 -std=c++20 -arch=sm_90 -I"$old" zeroing.cu -o /tmp/zeroing_old_bin
wait
echo "== library"; /tmp/zeroing_new
echo "== the samples alone size the grid"; /tmp/zeroing_old_bin
