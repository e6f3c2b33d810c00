#!/usr/bin/env bash
# Which kernels cuBLAS (pedantic FP32) runs for a shape, with their grids, blocks, registers,
# shared memory and durations (Nsight Compute, the second of two calls, --clock-control none):
# its tile and whether it splits K, beside the library's plan for the shapes where the library
# is furthest behind (1111 x 1333 x 1777, 1600 x 1200 x 1400, 1750^3, 1200^3; 2048^3 and
# 4096^3 for reference). About a minute. On the GPU machine, from the repository root:
#   bash benchmarks/experiments/cublas_kernels/run.sh [MxNxK ...]
set -e
cd "$(dirname "$0")"
mkdir -p bin
nvcc -std=c++17 -O2 -gencode arch=compute_90,code=sm_90 sgemm.cu -o bin/sgemm -lcublas
shapes=${*:-1111x1333x1777 1600x1200x1400 1750x1750x1750 1200x1200x1200 1100x1300x1500 2048x2048x2048 4096x4096x4096}
metrics=launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum
for s in $shapes; do
  echo "== $s"
  # The second call's kernels (the first may carry one-time set-up).
  ncu --clock-control none --metrics "$metrics" bin/sgemm ${s//x/ } 2>/dev/null |
    awk '/^  [a-zA-Z_].*\(/ { name = substr($0, 3); sub(/ \(.*$/, "", name) }
         /launch__/ { v[name, $1] = $NF; names[name] = 1 }
         /gpu__time_duration/ { v[name, $1] = $NF " " $(NF - 1) }
         END { for (x in names) printf "  %-70s grid %s block %s regs %s smem %s+%s time %s\n", substr(x, 1, 70),
               v[x, "launch__grid_size"], v[x, "launch__block_size"], v[x, "launch__registers_per_thread"],
               v[x, "launch__shared_mem_per_block_static"], v[x, "launch__shared_mem_per_block_dynamic"],
               v[x, "gpu__time_duration.sum"] }'
done
