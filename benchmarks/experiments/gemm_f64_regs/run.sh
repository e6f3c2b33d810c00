#!/usr/bin/env bash
# Do the FP64 SIMT GEMM kernels lose time to register spills? The SASS census of the GEMM
# kernels (../sass_census) found local-memory traffic in every double kernel of the two large
# policies: GemmPolicyLargeF64 (128 x 64 tiles, 4 x 8 doubles a thread, 256 threads, compiled for
# 2 blocks an SM, so at most 128 registers a thread) shows 29 to 46 LDL and 9 to 34 STL per
# kernel, GemmPolicyMediumF64 (64 x 64, 4 x 8, 128 threads, 4 blocks an SM: 128 registers) 34 to
# 35 LDL. This times variants that need not spill beside the library's default plan and
# cuBLAS's DGEMM (column-major NN, alpha 1, beta 0, inputs random in [-1, 1)):
#   def: tilecraft::gemm without a policy (its own plan: GemmPolicyLargeF64 at the shapes below)
#   L:   GemmPolicyLargeF64 forced (the control: the same kernels as def, the harness's noise)
#   L1:  GemmPolicyLargeF64 with min_blocks_per_sm = 1 (up to 255 registers; one block an SM)
#   L44: 128 x 64 tiles of RegBlock<4, 4> (512 threads), min_blocks_per_sm = 1 (128 registers,
#        32 accumulators; one block an SM)
#   M:   GemmPolicyMediumF64 forced (the control for M2)
#   M2:  GemmPolicyMediumF64 with min_blocks_per_sm = 2 (up to 255 registers)
# (lib.cu defines them: each a GemmPolicyOf of the default's members with those changed; every
# forced policy runs the library's whole plan, packing and split K included, on its tiles.)
# First the registers, stack and spill bytes of every gemm_kernel each variant compiled (ptxas
# -v), with its LDL / STL instruction counts where cuobjdump is at hand. The kernel marked "<-"
# (A column-major, B row-major as computed, vector fills) is the one each variant runs at the
# three shapes below, where the K-contiguous operand is packed (def: its LargeF64Members one).
# Then, per shape (2048^3, 4096^3, 3000^3, or the MxNxK arguments), one table: each variant's C
# checked against cuBLAS's (max |diff| / max |C| below 1e-12, else BAD), the median and fastest
# of ROUNDS (default 21) samples timed with CUDA events, twice the L2 written before each
# sample, three warm-up calls first, every variant once in each round (main.cu), TFLOP/s from
# the median and cuBLAS's median / the variant's (above 1: faster than cuBLAS).
# Not built by CMake. About a minute (the variants compile in parallel). On the GPU machine,
# from the repository root:
#   bash benchmarks/experiments/gemm_f64_regs/run.sh [MxNxK ...]
# VARIANTS="L L1" (environment) builds only those; NORUN=1 compiles and prints the registers only.
set -u
cd "$(dirname "$0")" || exit 1
root=$(cd ../../.. && pwd)
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --extended-lambda"
variants=${VARIANTS:-def L L1 L44 M M2}
for v in $variants; do
  case $v in def | L | L1 | L44 | M | M2) ;; *) echo "unknown variant $v (def L L1 L44 M M2)"; exit 1 ;; esac
done
mkdir -p bin
rm -f bin/*.o bin/*.log bin/f64regs
# Each variant's copy of the library in a namespace of its own (-Dtilecraft=tc_<name>), so that
# all of them link into one binary.
pids=() list=""
for v in $variants; do
  nvcc $F -Xptxas -v -I "$root/include" -Dtilecraft=tc_$v -DV_$v -DFN=gemm_$v -DDESC=desc_$v -c lib.cu \
    -o bin/$v.o 2>bin/$v.log &
  pids+=($!)
  list="$list TC_VARIANT($v)"
done
nvcc $F "-DTC_VARIANTS=$list" -c main.cu -o bin/main.o 2>bin/main.log &
pids+=($!)
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
if [ $failed = 1 ]; then
  for f in bin/*.log; do grep -q -i "error" "$f" && { echo "== $f"; grep -i -A3 "error" "$f" | head -40; }; done
  echo "compile failed"
  exit 1
fi
objs=""
for v in $variants; do objs="$objs bin/$v.o"; done
nvcc $F bin/main.o $objs -o bin/f64regs -lcublas || { echo "link failed"; exit 1; }

# Registers and spills of each variant's gemm_kernel instances: ptxas's log, and the SASS's
# LDL / STL counts (cuobjdump) where it is installed.
demangle() { if command -v c++filt >/dev/null; then c++filt; else cat; fi; }
echo "registers, stack and spill bytes of each gemm_kernel (ptxas -v); LDL / STL: SASS instructions"
printf "%-7s %-42s %5s %6s %10s %10s %5s %5s\n" variant "kernel: policy members, A, B, fill, deal" regs stack "spill st" \
  "spill ld" LDL STL
for v in $variants; do
  : >bin/$v.sass
  if command -v cuobjdump >/dev/null; then cuobjdump -sass bin/$v.o >bin/$v.sass 2>/dev/null; fi
  have_sass=$([ -s bin/$v.sass ] && echo 1 || echo 0)
  awk -v q="'" -v sass="bin/$v.sass" -v have_sass=$have_sass '
    FILENAME == sass {
      if ($0 ~ /Function :/) f = $3
      if ($0 ~ /[ \t]LDL[ .]/) ldl[f]++
      if ($0 ~ /[ \t]STL[ .]/) stl[f]++
      next
    }
    /Compiling entry function/ { split($0, part, q); name = part[2] }
    /bytes stack frame/ { stack = $1; st = $5; ld = $9 }
    /Used [0-9]+ registers/ && name ~ /gemm_kernel/ {
      for (i = 1; i <= NF; ++i) if ($i == "Used") regs = $(i + 1)
      print regs, stack, st, ld, (have_sass ? ldl[name] + 0 : "-"), (have_sass ? stl[name] + 0 : "-"), name
      name = ""
    }
  ' bin/$v.sass bin/$v.log | demangle |
    sed -E 's/ void [A-Za-z0-9_]+::detail::gemm_kernel<([^,]+), \([A-Za-z0-9_]+::Order\)([01]), \([A-Za-z0-9_]+::Order\)([01]), (true|false), (true|false),.*/ \1 \2 \3 \4 \5/' |
    while read -r regs stack st ld nldl nstl pol oa ob vec deal; do
      pol=${pol##*::}  # the policy's members struct (GemmPolicyOf<...>)
      pol=${pol%%>*}
      a=$([ "$oa" = 1 ] && echo col || echo row)
      b=$([ "$ob" = 1 ] && echo col || echo row)
      fill=$([ "$vec" = true ] && echo vector || echo element)
      deal=$([ "$deal" = true ] && echo deal || echo "")
      mark=$([ "$oa$ob$vec" = 10true ] && echo " <-" || echo "")
      printf "%-7s %-42s %5s %6s %10s %10s %5s %5s%s\n" "$v" "$pol A $a B $b $fill $deal" "$regs" "$stack" \
        "$st" "$ld" "$nldl" "$nstl" "$mark"
    done
done
[ "${NORUN:-0}" = 1 ] && exit 0
echo
bin/f64regs "$@"
