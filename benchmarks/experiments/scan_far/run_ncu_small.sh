#!/usr/bin/env bash
# Nsight Compute on the one-wave scan (f32 inclusive sum of 2^22 items, 512 tiles of 128 x 64,
# where the scan reads 0.99x CUB): CUB's DeviceScanKernel and the library's scan_kernel, the
# first launch of each in policies.cu (caches flushed by ncu before each), with the sections
# that say where a latency-bound kernel waits: speed of light, memory workload, occupancy,
# scheduler and warp-state statistics. Writes /tmp/ncu_small_{cub,tilecraft}.txt and prints
# their headline lines (about a minute; --clock-control none: the benchmarks' clocks).
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" policies.cu -o /tmp/scan_far_policies
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats"
ncu --clock-control none -k regex:DeviceScanKernel -c 1 $sections /tmp/scan_far_policies 22 >/tmp/ncu_small_cub.txt 2>&1
ncu --clock-control none -k regex:scan_kernel -c 1 $sections /tmp/scan_far_policies 22 >/tmp/ncu_small_tilecraft.txt 2>&1
for who in cub tilecraft; do
  echo "== $who"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per Thread|Grid Size|Block Size|No Eligible|Warp Cycles Per Issued|Issued Warp Per Scheduler|Stall|smsp__pcsamp" /tmp/ncu_small_$who.txt | head -30
done
