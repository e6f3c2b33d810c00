#!/usr/bin/env bash
# Builds sel.cu against the library and against a copy with fence.acq_rel.gpu in select_if's
# in-place fences, runs both.
set -e
cd "$(dirname "$0")"
root=../../..
rm -rf /tmp/patched && mkdir -p /tmp/patched && cp -r $root/include /tmp/patched/
f='asm volatile("fence.acq_rel.gpu;" ::: "memory");'
sed -i "s/if (in_place) __threadfence();/if (in_place) $f/" /tmp/patched/include/tilecraft/device/detail/select_kernels.cuh
sed -i "s/      __threadfence();  \/\/ (acquire: each lane/      $f  \/\/ (acquire: each lane/; s/if (fenced) __threadfence();/if (fenced) $f/" /tmp/patched/include/tilecraft/device/detail/scan_tile_state.cuh
echo "patched fences: $(grep -c 'fence.acq_rel' /tmp/patched/include/tilecraft/device/detail/select_kernels.cuh /tmp/patched/include/tilecraft/device/detail/scan_tile_state.cuh | tr '\n' ' ')"
nvcc -O3 -std=c++20 -arch=sm_90 -I$root/include sel.cu -o /tmp/sel_orig &
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/patched/include sel.cu -o /tmp/sel_patched &
wait
echo "== library (__threadfence)"; /tmp/sel_orig
echo "== fence.acq_rel.gpu"; /tmp/sel_patched
