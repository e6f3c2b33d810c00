#!/usr/bin/env bash
# copy.cu measured the scan's L2 prefetch costing the bare tile copy 8% at 2^28 (529 -> 572 us,
# the scan's own time), so the scan now runs at the prefetched copy's speed. Less prefetch, less
# cost? Builds ../scan_far/far.cu (default f32 and int scans, 2^21 ... 2^28, beside CUB, each
# output's bits hashed: every variant must print the same hashes) against the library and
# patched copies, then runs each (about two minutes on the GPU machine):
#   library   each block prefetches the whole tile one SM's worth of tickets ahead
#   half      the tile's first half       quarter   its first quarter
#   late      the tile's second half      alt       the whole tile, every other ticket only
#   bulkpf    the whole tile by one cp.async.bulk.prefetch.L2 (thread 0; sm_90, aligned inputs
#             only: an experiment, not a library form); bulkpf2 / bulkpfh: two SMs' / half an
#             SM's worth of tickets ahead instead of one
#   sel_library, sel_bulkpf: select_if (../scan_far/sel.cu) with the library's prefetch and with
#             the bulk one
# Usage: run_prefetch.sh [variant...] (default: all of them)
set -e
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
kernels=tilecraft/device/detail/scan_kernels.cuh
prefetch=tilecraft/arch/prefetch.cuh
build() {  # name, then file:sed-expression pairs (a bare expression patches scan_kernels.cuh)
  local name=$1 dir=/tmp/pf_$1
  shift
  rm -rf "$dir" && cp -r "$root/include" "$dir"
  for patch in "$@"; do
    local file=$kernels expr=$patch
    case $patch in tilecraft/*:*) file=${patch%%:*} expr=${patch#*:} ;; esac
    cp "$dir/$file" "$dir/$file.orig"
    sed -i "$expr" "$dir/$file"
    if cmp -s "$dir/$file" "$dir/$file.orig"; then echo "$name: the patch to $file did not apply"; return 1; fi
  done
  nvcc -O3 -std=c++20 -arch=sm_90 -I"$dir" "../scan_far/${src:-far.cu}" -o "$dir/run" && echo "$name" >>/tmp/pf_built
}
size='s/static_cast<std::size_t>(tile_items) \* sizeof(In)>(/static_cast<std::size_t>(tile_items) * sizeof(In) \/ PART>(/'
bulk_fn='/^#endif  \/\/ __CUDACC__/i template <int Threads, std::size_t Bytes>\nTILECRAFT_DEVICE void prefetch_l2_bulk(const void* p, int thread) {\n  if (thread == 0) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "r"(static_cast<unsigned>(Bytes)) : "memory");\n}\n'
bulk_scan='s/arch::prefetch_l2_block<Policy::threads,/arch::prefetch_l2_bulk<Policy::threads,/'
bulk_select='tilecraft/device/detail/select_kernels.cuh:s/arch::prefetch_l2_block<threads,/arch::prefetch_l2_bulk<threads,/'
distance='tilecraft/device/detail/scan_dispatch.cuh:s|? limits.sms : 0;|? AHEAD : 0;|'
variants=${*:-library half quarter late alt bulkpf bulkpf2 bulkpfh sel_library sel_bulkpf}
rm -f /tmp/pf_built
for v in $variants; do
  case $v in
    library) build library & ;;
    half) build half "${size/PART/2}" & ;;
    quarter) build quarter "${size/PART/4}" & ;;
    late) build late "${size/PART/2}" 's/        in + later, static_cast<int>(threadIdx.x));/        in + later + tile_items \/ 2, static_cast<int>(threadIdx.x));/' & ;;
    bulkpf) build bulkpf "$prefetch:$bulk_fn" "$bulk_scan" & ;;
    bulkpf2) build bulkpf2 "$prefetch:$bulk_fn" "$bulk_scan" "${distance/AHEAD/2 * limits.sms}" & ;;
    bulkpfh) build bulkpfh "$prefetch:$bulk_fn" "$bulk_scan" "${distance/AHEAD/limits.sms / 2}" & ;;
    sel_library) src=sel.cu build sel_library & ;;
    sel_bulkpf) src=sel.cu build sel_bulkpf "$prefetch:$bulk_fn" "$bulk_select" & ;;
    alt) build alt 's/if (prefetch_ahead > 0 \&\& later + tile_items <= n) {/if (prefetch_ahead > 0 \&\& (ticket \& 1u) == 0 \&\& later + tile_items <= n) {/' & ;;
    *) echo "unknown variant $v"; exit 1 ;;
  esac
done
wait
for v in $variants; do
  grep -qx "$v" /tmp/pf_built && "/tmp/pf_$v/run" "$v" | grep -E "2\^(22|24|26|27|28)"
done
