#!/usr/bin/env bash
# Which in-place fence costs: A keeps only the release before the aggregate (select_kernels),
# B only the look-back's two (timing only).
set -e
cd "$(dirname "$0")"
root=../../..
for v in A B; do rm -rf /tmp/$v && mkdir -p /tmp/$v && cp -r $root/include /tmp/$v/; done
sed -i "s/      __threadfence();  \/\/ (acquire: each lane/      ;  \/\/ (acquire: each lane/; s/if (fenced) __threadfence();/;/" /tmp/A/include/tilecraft/device/detail/scan_tile_state.cuh
sed -i "s/if (in_place) __threadfence();/;/" /tmp/B/include/tilecraft/device/detail/select_kernels.cuh
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/A/include sel.cu -o /tmp/sel_A &
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/B/include sel.cu -o /tmp/sel_B &
wait
echo "== A: only the release before the aggregate"; /tmp/sel_A
echo "== B: only the look-back's fences"; /tmp/sel_B
