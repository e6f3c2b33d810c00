#!/usr/bin/env bash
# The default FP32 gemm of two versions of the library in one process, cuBLAS (pedantic FP32)
# beside them: L2 flushed before each sample, medians of 15 in two interleaved rounds, and each
# version's largest difference from cuBLAS relative to max |C| (prof.cu). Not built by CMake.
# The TUNING.md tables marked "standalone (old and new library in one process)" come from it.
#
# On the development machine (build/ is ignored, so the folder travels only when carried; carry
# build/exp and the three headers prof.cu includes from its parent folder):
#   mkdir -p build/exp/old && cp benchmarks/experiments/gemm_old_new/* build/exp/ &&
#   cp benchmarks/experiments/*.cuh build/ &&
#   git archive REV include | tar x -C build/exp/old          # "old": the library at REV
# On the GPU machine (with build/exp copied there beside the working tree):
#   build/exp/run.sh 1025x1025x1025 1024x1024x1024 ...        # "new": the working tree's include
#   NEWINC=old/include build/exp/run.sh ...                   # the same library twice: the harness's own bias
#   OLDFLAGS=-DTC_NO_DEAL build/exp/run.sh ...                 # "old" without dealt K steps (lib.cu)
#   NEWFLAGS=-DTC_POLICY=tilecraft::GemmPolicyLarge ...        # "new" with a policy forced (lib.cu)
# Row-major A (M x K), B (K x N) and C, alpha 1, beta 0. Each version is compiled with
# -Dtilecraft=tc_old / tc_new, so both link into one binary.
cd "$(dirname "$0")" || exit 1
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
mkdir -p bin
nvcc $F $OLDFLAGS -I old/include -Dtilecraft=tc_old -DFN=gemm_old -c lib.cu -o bin/old.o &
nvcc $F $NEWFLAGS -I "${NEWINC:-../../include}" -Dtilecraft=tc_new -DFN=gemm_new -c lib.cu -o bin/new.o &
nvcc $F -c prof.cu -o bin/prof.o &
wait
nvcc $F bin/old.o bin/new.o bin/prof.o -o bin/prof -lcublas || exit 1
for s in "$@"; do bin/prof ${s//x/ }; done
