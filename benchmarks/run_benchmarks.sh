#!/usr/bin/env sh
# run_benchmarks.sh BENCH JSON RESULTS_DIR [PYTHON]: run every benchmark with JSON output, then
# turn it into RESULTS_DIR/<gpu>/. Exits 77 (ctest: skipped) when there is no GPU.
set -u
bench=$1 json=$2 results=$3 python=${4:-python3}
"$bench" --benchmark_out="$json" --benchmark_out_format=json
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
exec "$python" "$(dirname "$0")/report.py" "$json" --out "$results"
