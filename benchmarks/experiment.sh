#!/usr/bin/env bash
# Tuning experiments on a GPU machine, cheaper than the full GPU check: build only the
# benchmark binary, run the benchmarks matching FILTER, print their table, and time the named
# kernels with Nsight Compute (gpu__time_duration, caches flushed by ncu before each launch),
# which separates a kernel's own duration from launch overhead.
# Usage: benchmarks/experiment.sh OUTDIR FILTER [NCU_FILTER NCU_KERNEL_REGEX]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: benchmarks/experiment.sh OUTDIR FILTER [NCU_FILTER NCU_KERNEL_REGEX]}
filter=${2:?benchmark filter}
ncu_filter=${3:-}
ncu_kernels=${4:-}
mkdir -p "$out"
out=$(cd "$out" && pwd)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
{ cmake --preset gpu -DTILECRAFT_BENCH_VARIANTS=ON && cmake --build --preset bench -j "$(nproc)"; } >"$out/experiment-build.log" 2>&1 ||
  { tail -30 "$out/experiment-build.log"; exit 1; }
bench=build/gpu/benchmarks/tilecraft_bench
TILECRAFT_BENCH_VARIANTS=1 "$bench" --benchmark_filter="$filter" --benchmark_out="$out/experiment.json" --benchmark_out_format=json \
  >"$out/experiment-bench.txt" 2>&1 || { tail -30 "$out/experiment-bench.txt"; exit 1; }
python3 benchmarks/report.py "$out/experiment.json" --out "$out/experiment-results" | tail -n +2
# Each space-separated NCU_FILTER is profiled on its own, so kernels of different sizes that
# share a name are reported apart. Benchmark names end in /min_time:.../manual_time: anchor a
# filter with `/` after the size, not with `$`.
for f in $ncu_filter; do
  ncu --clock-control none --metrics gpu__time_duration.sum -k "regex:$ncu_kernels" --launch-count 100 --csv \
    "$bench" --benchmark_filter="$f" >"$out/experiment-ncu.csv" 2>/dev/null
  # Median and minimum duration per kernel, in microseconds.
  python3 - "$out/experiment-ncu.csv" "$f" <<'PY'
import csv, sys, collections, re
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    print(f"ncu {sys.argv[2]}: no kernels profiled")
    sys.exit(0)
head, body = rows[0], rows[1:]
k, v, u = head.index("Kernel Name"), head.index("Metric Value"), head.index("Metric Unit")
t = collections.defaultdict(list)
for r in body:
    scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(r[u], 1.0)
    name = re.sub(r"^void ", "", r[k]).split("<")[0].split("::")[-1]
    t[name].append(float(r[v].replace(",", "")) * scale)
for name, xs in sorted(t.items()):
    xs.sort()
    print(f"ncu {sys.argv[2]:45s} {name:32s} n={len(xs):4d} median={xs[len(xs)//2]:8.3f} us  min={xs[0]:8.3f} us")
PY
done
