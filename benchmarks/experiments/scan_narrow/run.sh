#!/usr/bin/env bash
# Builds narrow.cu against the library (1-byte sums in two passes over shared memory wherever a
# thread's int accumulators would pass 128 bytes, since the forty-ninth session) and against a
# copy whose 1-byte scans keep them in registers (two_pass_tile with its old 2-byte minimum),
# then runs both (about a minute on the GPU machine). Arguments: the sizes' log2 (default 24 26
# 28 and the 2-byte exclusive scan; `run.sh 19 20 21 22 23` for the window from 512 KiB, where
# the two-pass rule took over unmeasured).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
kernels=tilecraft/device/detail/scan_kernels.cuh
rm -rf /tmp/narrow_registers && cp -r "$root/include" /tmp/narrow_registers
sed -i 's/sizeof(In) == sizeof(Out) \&\& Policy::items \* sizeof(Acc) > 128;/sizeof(In) == sizeof(Out) \&\& sizeof(In) >= 2 \&\& Policy::items * sizeof(Acc) > 128;/' \
  /tmp/narrow_registers/$kernels
if cmp -s "$root/include/$kernels" /tmp/narrow_registers/$kernels; then echo "the registers patch did not apply"; exit 1; fi
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" narrow.cu -o /tmp/scan_narrow &
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/narrow_registers narrow.cu -o /tmp/scan_narrow_registers &
wait
/tmp/scan_narrow library "$@"
/tmp/scan_narrow_registers registers "$@"
