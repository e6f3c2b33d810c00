#!/usr/bin/env bash
# D: the library with ../patches/select_ordered_states.patch applied (select_if in place orders
# its tile states with release/acquire semantics, as CUB does, instead of the look-back's
# fences): timing against the library as it is, and the in-place result checked.
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
rm -rf /tmp/D && mkdir -p /tmp/D && cp -r "$root/include" /tmp/D/
(cd /tmp/D && git init -q && git apply "$root/benchmarks/experiments/patches/select_ordered_states.patch") ||
  patch -p1 -d /tmp/D <"$root/benchmarks/experiments/patches/select_ordered_states.patch"
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" sel.cu -o /tmp/sel_orig &
nvcc -O3 -std=c++20 -arch=sm_90 -I/tmp/D/include sel.cu -o /tmp/sel_D &
wait
echo "== library"; /tmp/sel_orig
echo "== D: release/acquire tile states in place, no fences"; /tmp/sel_D
