#!/usr/bin/env bash
# As run.sh, with the in-place fences removed altogether (timing only: not a correct library).
set -e
cd "$(dirname "$0")"
root=../../..
rm -rf /tmp/nofence && mkdir -p /tmp/nofence && cp -r $root/include /tmp/nofence/
sed -i "s/if (in_place) __threadfence();/;/" /tmp/nofence/include/tilecraft/device/detail/select_kernels.cuh
sed -i "s/      __threadfence();  \/\/ (acquire: each lane/      ;  \/\/ (acquire: each lane/; s/if (fenced) __threadfence();/;/" /tmp/nofence/include/tilecraft/device/detail/scan_tile_state.cuh
grep -c "__threadfence" /tmp/nofence/include/tilecraft/device/detail/select_kernels.cuh /tmp/nofence/include/tilecraft/device/detail/scan_tile_state.cuh || true
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/nofence/include sel.cu -o /tmp/sel_nofence
echo "== no in-place fences"; /tmp/sel_nofence
