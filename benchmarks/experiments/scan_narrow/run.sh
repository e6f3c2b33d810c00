#!/usr/bin/env bash
# Builds narrow.cu against the library and against a copy whose 1-byte scans run in two passes
# over shared memory (two_pass_tile without its 2-byte minimum), then runs both (about a minute
# on the GPU machine).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
kernels=tilecraft/device/detail/scan_kernels.cuh
rm -rf /tmp/narrow_twopass && cp -r "$root/include" /tmp/narrow_twopass
sed -i 's/sizeof(In) == sizeof(Out) \&\& sizeof(In) >= 2 \&\& Policy::items/sizeof(In) == sizeof(Out) \&\& Policy::items/' \
  /tmp/narrow_twopass/$kernels
if cmp -s "$root/include/$kernels" /tmp/narrow_twopass/$kernels; then echo "the two-pass patch did not apply"; exit 1; fi
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" narrow.cu -o /tmp/scan_narrow &
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/narrow_twopass narrow.cu -o /tmp/scan_narrow_twopass &
wait
/tmp/scan_narrow library
/tmp/scan_narrow_twopass twopass
