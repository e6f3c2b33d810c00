#!/usr/bin/env bash
# block_scan of two versions of the library in one process, cub::BlockScan beside (prof.cu).
# Not built by CMake. Set-up on the development machine (build/ is ignored, so the folder
# travels only when carried):
#   mkdir -p build/bexp/old && cp benchmarks/experiments/block_scan_old_new/* build/bexp/ &&
#   git archive REV include | tar x -C build/bexp/old          # "old": the library at REV
# On the GPU machine (with build/bexp copied there beside the working tree): build/bexp/run.sh
cd "$(dirname "$0")" || exit 1
F="-std=c++20 -O3 -lineinfo -gencode arch=compute_90a,code=sm_90a"
mkdir -p bin
nvcc $F -I old/include -Dtilecraft=tc_old -DFN=old -c lib.cu -o bin/old.o &
nvcc $F -I "${NEWINC:-../../include}" -Dtilecraft=tc_new -DFN=new -c lib.cu -o bin/new.o &
nvcc $F -c prof.cu -o bin/prof.o &
wait
nvcc $F bin/old.o bin/new.o bin/prof.o -o bin/prof || exit 1
bin/prof "$@"
