#!/usr/bin/env bash
# Builds far.cu (scans, f32 and int) and sel.cu (select_if) against the library and against
# patched copies of it, then runs each: about a minute on the GPU machine.
#   library   the look-back walks back over the aggregates at every size (look_back_far)
#   wave      the walk only up to 8 x SMs tiles, waiting in place past them (before 2026-11-30)
#   w8, w32   8 or 32 windows of 4-byte accumulators instead of 16
#   intfar    int sums too fold in tile order (look_back_far instead of look_back_walk)
#   sel_*     select_if with the walk (library) or waiting in place (sel_inplace)
# Usage: run.sh [variant...] (default: all of them)
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
dispatch=tilecraft/device/detail/scan_dispatch.cuh
state=tilecraft/device/detail/scan_tile_state.cuh
select=tilecraft/device/detail/select_kernels.cuh
build() {  # name, source, then file:sed-expression pairs
  local name=$1 src=$2 dir=/tmp/far_$1
  shift 2
  rm -rf "$dir" && cp -r "$root/include" "$dir"
  for patch in "$@"; do
    local file=${patch%%:*} expr=${patch#*:}
    cp "$dir/$file" "$dir/$file.orig"
    sed -i "$expr" "$dir/$file"
    if cmp -s "$dir/$file" "$dir/$file.orig"; then echo "$name: the patch to $file did not apply"; return 1; fi
  done
  nvcc -O3 -std=c++20 -arch=sm_90 -I"$dir" "$src" -o "$dir/run" && echo "$name" >>/tmp/far_built
}
wave="$dispatch:s/const bool far = far_allowed;/const bool far = far_allowed \&\& tiles <= 8 * static_cast<std::int64_t>(limits.sms);/"
windows="$state:s/sizeof(Acc) <= 4 ? 16 :/sizeof(Acc) <= 4 ? WINDOWS :/"
intfar="$state:s/inline constexpr bool reassociable_v = std::is_integral_v<Acc> \&\&/inline constexpr bool reassociable_v = false \&\& std::is_integral_v<Acc> \&\&/"
inplace="$select:s/nullptr, \/\*far=\*\/true}/nullptr, \/*far=*\/false}/"
variants=${*:-library wave w8 w32 intfar sel_library sel_inplace}
rm -f /tmp/far_built
for v in $variants; do
  case $v in
    library) build library far.cu & ;;
    wave) build wave far.cu "$wave" & ;;
    w8) build w8 far.cu "${windows/WINDOWS/8}" & ;;
    w32) build w32 far.cu "${windows/WINDOWS/32}" & ;;
    intfar) build intfar far.cu "$intfar" & ;;
    sel_library) build sel_library sel.cu & ;;
    sel_inplace) build sel_inplace sel.cu "$inplace" & ;;
    *) echo "unknown variant $v"; exit 1 ;;
  esac
done
wait
for v in $variants; do
  grep -qx "$v" /tmp/far_built && "/tmp/far_$v/run" "$v"
done
