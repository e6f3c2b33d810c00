#!/usr/bin/env bash
# Scans and select_if of two versions of the library in one process, CUB and memcpy beside them
# (prof.cu). Not built by CMake. Set-up on the development machine (build/ is ignored, so the
# folder travels only when carried):
#   mkdir -p build/sexp/old && cp benchmarks/experiments/scan_old_new/* build/sexp/ &&
#   git archive REV include | tar x -C build/sexp/old          # "old": the library at REV
# On the GPU machine (with build/sexp copied there beside the working tree): build/sexp/run.sh
cd "$(dirname "$0")" || exit 1
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a"
mkdir -p bin
nvcc $F -I old/include -Dtilecraft=tc_old -DFN=old -c lib.cu -o bin/old.o &
nvcc $F -I "${NEWINC:-../../include}" -Dtilecraft=tc_new -DFN=new -c lib.cu -o bin/new.o &
nvcc $F -c prof.cu -o bin/prof.o &
wait
nvcc $F bin/old.o bin/new.o bin/prof.o -o bin/prof || exit 1
bin/prof "$@"
