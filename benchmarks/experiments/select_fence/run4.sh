#!/usr/bin/env bash
# C: CUB's way: the 8-byte tile states read with ld.acquire.gpu and published with
# st.release.gpu, no fences (timing, and the in-place result checked).
set -e
cd "$(dirname "$0")"
root=../../..
rm -rf /tmp/C && mkdir -p /tmp/C && cp -r $root/include /tmp/C/
s=/tmp/C/include/tilecraft/device/detail/scan_tile_state.cuh
sed -i "s/ld.relaxed.gpu.global.u64/ld.acquire.gpu.global.u64/; s/st.relaxed.gpu.global.u64/st.release.gpu.global.u64/" $s
sed -i "s/      __threadfence();  \/\/ (acquire: each lane/      ;  \/\/ (acquire: each lane/; s/if (fenced) __threadfence();/;/" $s
sed -i "s/if (in_place) __threadfence();/;/" /tmp/C/include/tilecraft/device/detail/select_kernels.cuh
grep -n "acquire.gpu.global.u64\|release.gpu.global.u64" $s
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/C/include sel.cu -o /tmp/sel_C
echo "== C: acquire/release 8-byte states, no fences"; /tmp/sel_C
