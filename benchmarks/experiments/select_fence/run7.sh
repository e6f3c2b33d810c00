#!/usr/bin/env bash
# The library's select_if / partition built as the .assert variant (-O1) and at -O3, each run
# against a host reference (o1_check.cu), then in place against out of place (sel.cu).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -std=c++20 -arch=sm_90 -DTILECRAFT_ENABLE_DEVICE_ASSERTIONS -Xcicc -O1 -Xptxas -O1 -I"$root/include" o1_check.cu -o /tmp/o1_check_O1 &
nvcc -std=c++20 -arch=sm_90 -DTILECRAFT_ENABLE_DEVICE_ASSERTIONS -I"$root/include" o1_check.cu -o /tmp/o1_check_O3 &
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" sel.cu -o /tmp/sel_W &
wait
echo "== -O1 assertions"; /tmp/o1_check_O1
echo "== -O3 assertions"; /tmp/o1_check_O3
echo "== sel"; /tmp/sel_W
