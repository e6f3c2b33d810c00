#!/usr/bin/env python3
"""Host test of benchmarks/report.py on a synthetic Google Benchmark JSON: families, variants
from named arguments, sizes (integers and MxNxK strings), the peers and the course baselines,
ratios from the median times, errored and aggregate rows dropped, err_fp64 carried into
summary.json and tabulated in summary.md only where both sides have it. Exits non-zero on the
first mismatch (ctest: report_py)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "..", "benchmarks", "report.py")


def row(name, median_us, unit, value, **extra):
    r = {"name": name, "run_type": "iteration", "median_us": median_us, unit: value}
    r.update(extra)
    return r


def main():
    bench = {
        "context": {"gpu": "Test GPU 9000", "gpu_sm_clock_mhz": 1980},
        "benchmarks": [
            row("scan_f32/memcpy/1048576/min_time:0.100/manual_time", 2.0, "GB/s", 4000.0),
            row("scan_f32/cub/1048576/min_time:0.100/manual_time", 4.0, "GB/s", 2000.0),
            row("scan_f32/tilecraft/1048576/min_time:0.100/manual_time", 3.0, "GB/s", 2666.0),
            row("stencil_f32/memcpy/64/r:4/manual_time", 1.0, "GB/s", 100.0),
            row("stencil_f32/tilecraft/64/r:4/manual_time", 1.25, "GB/s", 80.0),
            row("gemm_f32x3/cublas/4096x4096x4096/manual_time", 2700.0, "TFLOP/s", 50.9, err_fp64=3.35e-6),
            row("gemm_f32x3/tilecraft/4096x4096x4096/manual_time", 1200.0, "TFLOP/s", 114.5, err_fp64=6.01e-7),
            row("gemm_f32/cublas/512x512x512/manual_time", 10.0, "TFLOP/s", 26.8),
            row("gemm_f32/tilecraft/512x512x512/manual_time", 12.5, "TFLOP/s", 21.5, err_fp64=1e-7),
            row("gemm_f32/course_tiled/512x512x512/manual_time", 100.0, "TFLOP/s", 2.7),
            # dropped: an error, an aggregate, a name without a size
            dict(row("scan_f32/tilecraft/2048/manual_time", 1.0, "GB/s", 1.0), error_occurred=True),
            dict(row("scan_f32/tilecraft/4096/manual_time", 1.0, "GB/s", 1.0), run_type="aggregate"),
            row("lonely/tilecraft", 1.0, "GB/s", 1.0),
        ],
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.json")
        with open(path, "w") as f:
            json.dump(bench, f)
        run = subprocess.run([sys.executable, REPORT, path, "--out", tmp], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"report.py failed: {run.stderr}")
        out = os.path.join(tmp, "test-gpu-9000")
        summary = json.load(open(os.path.join(out, "summary.json")))
        md = open(os.path.join(out, "summary.md")).read()

    entries = {(e["benchmark"], str(e["size"]), e["subject"], e["peer"]): e for e in summary["entries"]}
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    expect(summary["gpu"] == "Test GPU 9000", "the GPU name")
    expect(len(entries) == 6, f"6 comparisons, got {sorted(entries)}")
    scan_memcpy = entries.get(("scan_f32", "1048576", "tilecraft", "memcpy"))
    scan_cub = entries.get(("scan_f32", "1048576", "tilecraft", "cub"))
    expect(scan_memcpy is not None and abs(scan_memcpy["ratio"] - 2.0 / 3.0) < 1e-3, "scan vs memcpy: 2/3")
    expect(scan_cub is not None and abs(scan_cub["ratio"] - 4.0 / 3.0) < 1e-3, "scan vs cub: 4/3")
    expect(scan_cub is not None and isinstance(scan_cub["size"], int), "an integer size stays an integer")
    stencil = entries.get(("stencil_f32_r4", "64", "tilecraft", "memcpy"))
    expect(stencil is not None and abs(stencil["ratio"] - 0.8) < 1e-3, "a named argument names the family")
    x3 = entries.get(("gemm_f32x3", "4096x4096x4096", "tilecraft", "cublas"))
    expect(x3 is not None and abs(x3["ratio"] - 2.25) < 1e-3, "gemm_f32x3 ratio 2.25")
    expect(x3 is not None and x3.get("err_fp64") == 6.01e-7 and x3.get("peer_err_fp64") == 3.35e-6,
           "err_fp64 and the peer's carried")
    f32 = entries.get(("gemm_f32", "512x512x512", "tilecraft", "cublas"))
    expect(f32 is not None and "err_fp64" not in f32, "no err_fp64 where the peer has none")
    course = entries.get(("gemm_f32", "512x512x512", "tilecraft", "course_tiled"))
    expect(course is not None and abs(course["ratio"] - 8.0) < 1e-3, "a course baseline is a comparator")
    expect("| gemm_f32x3 | 4096x4096x4096 | tilecraft | 114.5 | cublas | 50.9 | TFLOP/s | 2.250 |" in md,
           "the markdown row of gemm_f32x3")
    expect("## Accuracy" in md and "| gemm_f32x3 | 4096x4096x4096 | tilecraft | 6.01e-07 | cublas | 3.35e-06 |" in md,
           "the accuracy table")
    expect(md.count("| gemm_f32 | 512x512x512 | tilecraft |") == 2, "gemm_f32 in the main table only")
    if failures:
        sys.exit("test_report.py: " + "; ".join(failures))
    print("test_report.py: report.py passed on 13 synthetic rows")


if __name__ == "__main__":
    main()
