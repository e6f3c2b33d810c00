#!/usr/bin/env bash
# Nsight Compute on copy.cu's tile copies at 2^28 floats (cp.async and one bulk copy a tile, each
# without a prefetch, with the library's line prefetch and with one bulk prefetch a tile): the DRAM bytes
# read and written, L2's read sectors and hit rate, and the duration. If the prefetched runs
# read more than the 1 GiB the tiles hold, prefetched lines are evicted before their block
# loads them. (The SM clock is left alone: --clock-control none.) About a minute.
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
nvcc -O3 -std=c++20 -arch=sm_90 -I"$root/include" copy.cu -o /tmp/scan_bulk_copy
ncu --clock-control none -k regex:copy_tiles \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum \
  /tmp/scan_bulk_copy ncu
