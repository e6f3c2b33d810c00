#!/usr/bin/env bash
# The split one wave's failure in the -O1 test variants (seventieth session), bisected. On the GPU
# machine, from the repository root: bash benchmarks/experiments/scan_split_debug/run.sh
# [SANITIZE=1]. It copies the library and tests beside the build, applies
# ../patches/scan_one_wave_split.patch there, builds test_scan_lookback for sm_90 once per
# variant below (in parallel), and runs each on the split form's cases only:
#   O3         the plain build (passed in the GPU check of 41f1f6a)
#   O1         NVVM and ptxas at -O1 (what the .sm75 and .assert variants share)
#   O1-assert  -O1 with device assertions (the failing .assert variant)
#   cicc-O1    NVVM at -O1, ptxas at -O3
#   ptxas-O1   NVVM at -O3, ptxas at -O1
#   O1-sync    -O1 with TILECRAFT_DISABLE_CP_ASYNC (the shared part copied synchronously)
#   O1-sm75    -O1, sm_75 PTX assembled for sm_90 (the failing .sm75 variant)
# A line a variant: its doctest summary (failed assertions and the first mismatch counts).
# SANITIZE=1 also runs the first failing variant's split cases under racecheck and memcheck.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work="$root/build/split_debug"
rm -rf "$work" && mkdir -p "$work/src"
mkdir -p "$work/src/benchmarks"
cp -r "$root/include" "$root/tests" "$work/src/"
cp -r "$root/benchmarks/experiments" "$work/src/benchmarks/"
# (From the repository root with --directory: run inside the work tree, git apply would skip the
# paths outside the current folder, silently.)
git -C "$root" apply --directory=build/split_debug/src benchmarks/experiments/patches/scan_one_wave_split.patch
grep -q scan_one_wave_split_kernel "$work/src/include/tilecraft/device/detail/scan_kernels.cuh" ||
  { echo "the patch did not apply"; exit 1; }
src="$work/src"
common=(-std=c++20 --extended-lambda -I"$src/include" -I"$src/tests/support" -I"$src/tests/device" -lineinfo)
echo 'int tilecraft_test_min_sm() { return 0; }' >"$work/min_sm.cpp"
g++ -std=c++20 -O1 -I"$src/tests/support" -I"$src/include" -I/usr/local/cuda/include -I/usr/local/cuda/include/cccl \
  -c "$src/tests/support/device_main.cpp" -o "$work/device_main.o"
g++ -c "$work/min_sm.cpp" -o "$work/min_sm.o"
build() {  # name, nvcc options...
  local name=$1
  shift
  nvcc "${common[@]}" "$@" -c "$src/tests/device/test_scan_lookback.cu" -o "$work/$name.o" >"$work/$name.log" 2>&1 &&
    nvcc -o "$work/$name" "$work/$name.o" "$work/device_main.o" "$work/min_sm.o" >>"$work/$name.log" 2>&1 ||
    echo "$name: BUILD FAILED (see $work/$name.log)"
}
sm90=(-gencode arch=compute_90,code=sm_90)
build O3 "${sm90[@]}" -O3 &
build O1 "${sm90[@]}" -Xcicc -O1 -Xptxas -O1 &
build O1-assert "${sm90[@]}" -Xcicc -O1 -Xptxas -O1 -DTILECRAFT_ENABLE_DEVICE_ASSERTIONS &
build cicc-O1 "${sm90[@]}" -Xcicc -O1 &
build ptxas-O1 "${sm90[@]}" -Xptxas -O1 &
build O1-sync "${sm90[@]}" -Xcicc -O1 -Xptxas -O1 -DTILECRAFT_DISABLE_CP_ASYNC &
build O1-sm75 -gencode arch=compute_75,code=sm_90 -Xcicc -O1 -Xptxas -O1 &
wait
first_failing=""
for v in O3 O1 O1-assert cicc-O1 ptxas-O1 O1-sync O1-sm75; do
  [ -x "$work/$v" ] || continue
  out=$("$work/$v" -tc='*split*' 2>&1 || true)
  summary=$(echo "$out" | grep -E '^\[doctest\] assertions' | head -1)
  counts=$(echo "$out" | grep -oE 'CHECK\( [0-9]+ == 0 \)' | head -4 | grep -oE '[0-9]+' | tr '\n' ' ')
  echo "$v: $summary; first mismatch counts: ${counts:-none}"
  if [ -z "$first_failing" ] && [ -n "$summary" ] && ! echo "$summary" | grep -q '| 0 failed'; then first_failing=$v; fi
done
if [ "${SANITIZE:-0}" = 1 ] && [ -n "$first_failing" ]; then
  for tool in racecheck memcheck; do
    echo "== $tool on $first_failing"
    TILECRAFT_TEST_HUGE=0 TILECRAFT_TEST_SANITIZER=1 compute-sanitizer --tool "$tool" "$work/$first_failing" -tc='*split*' 2>&1 |
      grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Error|hazard|\[doctest\] assertions' | head -20
  done
fi
