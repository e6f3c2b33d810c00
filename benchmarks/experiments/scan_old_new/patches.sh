#!/usr/bin/env bash
# Several library patches, each against the library at HEAD in one process of its own
# (prof.cu: "old" = HEAD, "new" = HEAD with the patch applied), the old library and the harness
# built once, the patched libraries side by side. Not built by CMake.
#   On the development machine (build/ is ignored: carry build/sexp and build/cuda_check.cuh):
#     bash benchmarks/experiments/scan_old_new/patches.sh prepare NAME...   (benchmarks/experiments/patches/NAME.patch)
#   On the GPU machine, from the repository root:
#     build/sexp/patches.sh run MODES NAME...   (MODES: prof.cu's, comma-separated: all, mid, window, far, small, one;
#                                                NAME@MODES runs that patch in its own modes instead)
# Each patch's table goes to stdout under its name.
set -u
action=${1:?usage: patches.sh prepare NAME... | run MODE NAME...}
shift
if [ "$action" = prepare ]; then
  cd "$(dirname "$0")/../../.." || exit 1
  rm -rf build/sexp && mkdir -p build/sexp/old || exit 1
  cp benchmarks/experiments/scan_old_new/* build/sexp/ && cp benchmarks/experiments/cuda_check.cuh build/ || exit 1
  git archive HEAD include | tar x -C build/sexp/old || exit 1
  for entry in "$@"; do
    name=${entry%%@*}
    mkdir -p "build/sexp/p_$name"
    git archive HEAD include | tar x -C "build/sexp/p_$name" || exit 1
    git apply --directory="build/sexp/p_$name" "benchmarks/experiments/patches/$name.patch" ||
      { echo "$name.patch does not apply to HEAD"; exit 1; }
  done
  echo "prepared: old = $(git rev-parse --short HEAD), patched: $*"
  exit 0
fi
[ "$action" = run ] || { echo "unknown action $action"; exit 1; }
modes=${1:?usage: patches.sh run MODES NAME...}
shift
cd "$(dirname "$0")" || exit 1
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a"
mkdir -p bin
nvcc $F -I old/include -Dtilecraft=tc_old -DFN=old -c lib.cu -o bin/old.o &
nvcc $F -c prof.cu -o bin/prof.o &
for entry in "$@"; do
  name=${entry%%@*}
  nvcc $F -I "p_$name/include" -Dtilecraft=tc_new -DFN=new -c lib.cu -o "bin/new_$name.o" &
done
wait
status=0
for entry in "$@"; do
  name=${entry%%@*}
  these=$modes
  [ "$name" = "$entry" ] || these=${entry#*@}
  if nvcc $F bin/old.o "bin/new_$name.o" bin/prof.o -o "bin/prof_$name"; then
    for mode in ${these//,/ }; do
      echo "== $name ($mode): old = HEAD, new = HEAD + $name.patch"
      "bin/prof_$name" "$mode" || status=1
    done
  else
    echo "== $name: build FAILED"
    status=1
  fi
done
exit $status
