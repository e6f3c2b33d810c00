#!/usr/bin/env bash
# The FP32 gemm's element-by-element fill at the goal's worst shapes (1111 x 1333 x 1777: B's
# rows of 1333 floats are not 16-byte aligned, so the launcher fills B element by element and
# deals no K steps out). Variants, each with cuBLAS (pedantic FP32) in the same process (L2
# flushed, medians of 15, two interleaved rounds; the ratio is the best round's):
#   base:   the library as it is
#   deal:   element-fill kernels deal K steps too (the kernel's can_deal and the dispatch's two
#           `balanced` conditions patched; a loop that the undealt element-fill products share)
#   copyb:  B copied to aligned rows first (detail::copy_rows), then the default gemm (vector
#           fill for B, K steps dealt)
#   pack:   the packing limits lowered to 2^30 (A transposed and B copied)
# On the GPU machine, from the repository root: bash benchmarks/experiments/gemm_fill_deal/run.sh [MxNxK ...]
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
mkdir -p bin
rm -rf bin/deal && mkdir -p bin/deal && cp -r "$root/include" bin/deal/
kern=bin/deal/include/tilecraft/device/detail/gemm_kernels.cuh
disp=bin/deal/include/tilecraft/device/detail/gemm_dispatch.cuh
sed -i 's/constexpr bool can_deal = VectorFill \&\& Policy::max_split_k > 1;/constexpr bool can_deal = Policy::max_split_k > 1;/' $kern
sed -i 's/limits.balanced = limits.balanced \&\& vector_kernel \&\& after.empty();/limits.balanced = limits.balanced \&\& after.empty();/' $disp
sed -i 's/split.balanced = split.balanced \&\& simt_fills_in_vectors(p);/split.balanced = split.balanced;/' $disp
[ "$(grep -c 'can_deal = Policy::max_split_k > 1;' $kern)" = 1 ] && [ "$(grep -c 'balanced \&\& after.empty();' $disp)" = 1 ] &&
  [ "$(grep -c 'split.balanced = split.balanced;' $disp)" = 1 ] || { echo "patch did not apply"; exit 1; }
nvcc $F -I "$root/include" -Dtilecraft=tc_base -DFN=gemm_base -c lib.cu -o bin/base.o &
nvcc $F -I bin/deal/include -Dtilecraft=tc_deal -DFN=gemm_deal -c lib.cu -o bin/deal.o &
nvcc $F -I "$root/include" -Dtilecraft=tc_copyb -DFN=gemm_copyb -DTC_COPY_B -c lib.cu -o bin/copyb.o &
nvcc $F -I "$root/include" -Dtilecraft=tc_pack -DFN=gemm_pack -DTC_PACK -c lib.cu -o bin/pack.o &
nvcc $F "-DTC_VARIANTS=TC_VARIANT(base) TC_VARIANT(deal) TC_VARIANT(copyb) TC_VARIANT(pack)" -c prof.cu -o bin/prof.o &
wait
nvcc $F bin/base.o bin/deal.o bin/copyb.o bin/pack.o bin/prof.o -o bin/prof -lcublas
cuobjdump -res-usage bin/prof 2>/dev/null | grep -A1 'tc_deal.*gemm_kernel' | grep -o 'REG:[0-9]*\|STACK:[0-9]*' | paste - - | sort | uniq -c
shapes=${*:-1111x1333x1777 1600x1200x1400 1750x1750x1750 1500x1200x1000 1200x1600x800 1200x1200x1200 1000x999x1001 1025x1025x1025 1031x1029x1027 1100x1300x1500 2048x2048x2048}
for s in $shapes; do bin/prof ${s//x/ }; done
