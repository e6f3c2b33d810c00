#!/usr/bin/env bash
# The FP32 gemm's element-by-element fill at the goal's worst shapes (1111 x 1333 x 1777: B's
# rows of 1333 floats are not 16-byte aligned, so B fills element by element). Variants of the
# default gemm, each with cuBLAS (pedantic FP32) in the same process (L2 flushed, medians of 15,
# two interleaved rounds; the ratio is the best round's; see lib.cu and ../gemm_old_new/prof.cu):
#   base:    the library before dealt K steps in the element fill (OLD: its tree, holding include/)
#   dealall: base with every element-fill kernel able to deal, and the plan dealing for them too
#            (the kernel's can_deal and the dispatch's two `balanced` conditions patched)
#   new:     the working tree (dealt plans of the element fill on a kernel of their own)
#   new2:    new, and undealt vector-fill products on a kernel without the deal's loop too
#   (new3, the 128 x 128 policies' undealt element-fill products on the dealing kernel, landed
#   with new in a993db2: the variant is gone)
#   copyb:   base with B copied to aligned rows first (detail::copy_rows), then the default gemm
#   pack:    base with the packing limits lowered to 2^30 (A transposed and B copied)
# VARIANTS picks some (default: base dealall new new2). On the development machine:
#   mkdir -p build/fd_old && git archive REV include | tar x -C build/fd_old
# and carry build/fd_old to the GPU machine; there, from the repository root:
#   bash benchmarks/experiments/gemm_fill_deal/run.sh [MxNxK ...]
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
old=${OLD:-$root/build/fd_old}
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
variants=${VARIANTS:-base dealall new new2}
rm -rf bin && mkdir -p bin/dealall bin/new2
cp -r "$old/include" bin/dealall/ && cp -r "$root/include" bin/new2/
kern=bin/dealall/include/tilecraft/device/detail/gemm_kernels.cuh
disp=bin/dealall/include/tilecraft/device/detail/gemm_dispatch.cuh
sed -i 's/constexpr bool can_deal = VectorFill \&\& Policy::max_split_k > 1;/constexpr bool can_deal = Policy::max_split_k > 1;/' $kern
sed -i 's/limits.balanced = limits.balanced \&\& vector_kernel \&\& after.empty();/limits.balanced = limits.balanced \&\& after.empty();/' $disp
sed -i 's/split.balanced = split.balanced \&\& simt_fills_in_vectors(p);/split.balanced = split.balanced;/' $disp
[ "$(grep -c 'can_deal = Policy::max_split_k > 1;' $kern)" = 1 ] && [ "$(grep -c 'balanced \&\& after.empty();' $disp)" = 1 ] &&
  [ "$(grep -c 'split.balanced = split.balanced;' $disp)" = 1 ] || { echo "dealall: patch did not apply"; exit 1; }
disp=bin/new2/include/tilecraft/device/detail/gemm_dispatch.cuh
line='    auto* kernel = gemm_kernel<Policy, oa, ob, any_vector, deal, E>;'
grep -qxF "$line" $disp || { echo "new2: patch did not apply"; exit 1; }
sed -i "/^    auto\* kernel = gemm_kernel<Policy, oa, ob, any_vector, deal, E>;\$/a\\
    if constexpr (any_vector) { if (vector_kernel \&\& slices.units == 0) kernel = gemm_kernel<Policy, oa, ob, true, false, E>; }" $disp
declare -A inc=([base]=$old/include [dealall]=bin/dealall/include [new]=$root/include [new2]=bin/new2/include
                [copyb]=$old/include [pack]=$old/include)
declare -A flag=([copyb]=-DTC_COPY_B [pack]=-DTC_PACK)
list=""
for v in $variants; do
  nvcc $F -I "${inc[$v]}" -Dtilecraft=tc_$v -DFN=gemm_$v ${flag[$v]:-} -c lib.cu -o bin/$v.o &
  list="$list TC_VARIANT($v)"
done
nvcc $F "-DTC_VARIANTS=$list" -c ../gemm_old_new/prof.cu -o bin/prof.o &
wait
nvcc $F $(for v in $variants; do echo bin/$v.o; done) bin/prof.o -o bin/prof -lcublas
for v in $variants; do
  echo "$v: $(cuobjdump -res-usage bin/prof 2>/dev/null | grep -A1 "tc_$v.*gemm_kernel" | grep -o 'REG:[0-9]*' | sort | uniq -c | tr '\n' ' ')"
done
shapes=${*:-1111x1333x1777 1750x1750x1750 1650x1650x1650 1111x1222x1333 1234x1111x1999 1537x1539x1541 1025x1025x1025 1031x1029x1027 1000x999x1001 1600x1200x1400 1024x1024x1024 8192x8192x64 2048x2048x2048}
for s in $shapes; do bin/prof ${s//x/ }; done
