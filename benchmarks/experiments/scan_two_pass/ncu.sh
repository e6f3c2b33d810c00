#!/usr/bin/env bash
# The two-pass scan's kernels apart (Nsight Compute; caches not flushed between kernels, so that
# pass 2 reads what pass 1 left in L2): the library's scan_sums_kernel / scan_from_sums_kernel
# (forced, every size) beside the prototype's tile_sums / tile_scans, CUB and the single pass,
# one run of each form (TWO_PASS_ONCE). On the GPU machine, from the repository root:
#   bash benchmarks/experiments/scan_two_pass/ncu.sh OUTDIR [log2 n ...]   (default 20 22)
# Writes OUTDIR/times.txt (run.sh's table at 2^20 ... 2^23) and OUTDIR/ncu.csv. NCU_SET=full
# adds the full section set (warp stall reasons) for the two-pass kernels, at the first size.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:?usage: ncu.sh OUTDIR [log2 n ...]}
shift
sizes=${*:-20 22}
mkdir -p "$out"
bash "$here/run.sh" 20 21 22 23 >"$out/times.txt" 2>&1
cat "$out/times.txt"
bin="$root/build/scan_two_pass/two_pass"
metrics=gpu__time_duration.sum,launch__registers_per_thread,launch__shared_mem_per_block_static
metrics=$metrics,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum
kernels='regex:scan_sums|scan_from_sums|tile_sums|tile_scans|scan_kernel|DeviceScanKernel'
# shellcheck disable=SC2086
TWO_PASS_ONCE=1 ncu --clock-control none --cache-control none --metrics "$metrics" -k "$kernels" --csv \
  "$bin" $sizes >"$out/ncu.csv" 2>"$out/ncu.err"
if [ "${NCU_SET:-}" = full ]; then
  TWO_PASS_ONCE=1 ncu --clock-control none --cache-control none --set full -k 'regex:scan_from_sums|tile_scans' \
    --launch-count 4 -o "$out/pass2" "$bin" "${sizes%% *}" >"$out/ncu-full.log" 2>&1
fi
# One line a kernel: its name and the metrics, in launch order.
python3 - "$out/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    sys.exit("no kernels profiled")
h, body = rows[0], rows[1:]
k, m, v, i = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
seen = collections.OrderedDict()
for r in body:
    seen.setdefault(r[i], {"name": r[k].split("(")[0].replace("void ", "")[:60]})[r[m]] = r[v]
for key, d in seen.items():
    name = d.pop("name")
    print(key, name, " ".join(f"{a.split('__')[-1]}={b}" for a, b in d.items()))
PY
