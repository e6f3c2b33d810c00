#!/usr/bin/env bash
# E: the library with its in-place fences gone (retire_loads before the barrier; relaxed tile
# states, as CUB's in-place select with loads through shared memory): in place against out of
# place in one run, the result checked, and the in-place kernel's fences counted in the SASS.
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" sel.cu -o /tmp/sel_E
echo "MEMBARs in the select kernel: $(cuobjdump -sass /tmp/sel_E | awk '/Function : .*select_kernel/{f=1} /Function : /&&!/select_kernel/{f=0} f&&/MEMBAR/' | wc -l)"
/tmp/sel_E
