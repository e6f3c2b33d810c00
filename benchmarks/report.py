#!/usr/bin/env python3
"""Turn tilecraft_bench's Google Benchmark JSON into benchmarks/results/<gpu>/:
summary.json (one entry per benchmark, size and comparison), summary.md, and PNG plots.

Benchmarks are named family/implementation/size. Implementations named memcpy, cub, cublas, cublas_tf32,
libcupp_pipeline or read (a kernel that only reads the subject's input) are peers; course_* are
textbook baselines; everything else is a subject (tilecraft's own), compared with every peer and
baseline of its family and size (a histogram with cub and with read). Named arguments after the size label variants of the family:
stencil_f32/tilecraft/67108864/r:4 belongs to the family stencil_f32_r4. A size is an integer,
or a string of integers joined by x for a multi-dimensional problem (gemm_f32/cublas/64x8192x8192:
M x N x K), kept as that string in summary.json.
ratio = subject speed / peer speed (same work, so peer time / subject time): > 1 is faster.
"""
import argparse
import json
import os
import re
import sys
from collections import defaultdict

PEERS = ("memcpy", "cub", "cublas", "cublas_tf32", "libcupp_pipeline", "read")
# Name parts Google Benchmark appends itself (not arguments): min_time:0.100, manual_time, ...
RUN_OPTIONS = ("min_time:", "min_warmup_time:", "iterations:", "repeats:", "threads:")
UNITS = ("TFLOP/s", "GB/s", "Greductions/s", "Gscans/s")


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def parse_size(text):
    """An integer size, or the MxNxK string of a multi-dimensional one."""
    return int(text) if text.isdigit() else text


def size_key(size):
    """Orders sizes by the work they stand for (the product of their dimensions), then by name."""
    dims = [int(d) for d in re.findall(r"\d+", str(size))]
    product = 1
    for d in dims:
        product *= d
    return (product, str(size))


def load(paths):
    context, rows = {}, []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        context.update(data.get("context", {}))
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
                continue
            parts = b["name"].split("/")
            if len(parts) < 3:
                continue
            family, impl, size = parts[0], parts[1], parts[2]
            variant = [p.replace(":", "") for p in parts[3:] if ":" in p and not p.startswith(RUN_OPTIONS)]
            family = "_".join([family] + variant)
            unit = next((u for u in UNITS if u in b), None)
            # The harness reports the median sample (robust to a stray slow launch); older
            # results only have Google Benchmark's mean.
            if "median_us" in b:
                seconds = b["median_us"] * 1e-6
            else:
                seconds = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
            rows.append(dict(family=family, impl=impl, size=parse_size(size), unit=unit or "1/s",
                             value=b[unit] if unit else 1.0 / seconds, seconds=seconds,
                             err_fp64=b.get("err_fp64")))
    return context, rows


def summarize(rows):
    by_key = defaultdict(dict)
    for r in rows:
        by_key[(r["family"], r["size"])][r["impl"]] = r
    entries = []
    for (family, size), impls in sorted(by_key.items(), key=lambda kv: (kv[0][0], size_key(kv[0][1]))):
        comparators = [i for i in impls if i in PEERS] + sorted(i for i in impls if i.startswith("course_"))
        subjects = [i for i in impls if i not in PEERS and not i.startswith("course_")]
        for s in subjects:
            for p in comparators:
                entry = {
                    "benchmark": family, "size": size, "subject": s,
                    "tilecraft": round(impls[s]["value"], 4), "peer": p,
                    "peer_value": round(impls[p]["value"], 4), "unit": impls[s]["unit"],
                    "ratio": round(impls[p]["seconds"] / impls[s]["seconds"], 4),
                }
                # The GEMM rows' max relative error against an FP64 product of the same operands.
                if impls[s].get("err_fp64") is not None and impls[p].get("err_fp64") is not None:
                    entry["err_fp64"] = float(f"{impls[s]['err_fp64']:.3g}")
                    entry["peer_err_fp64"] = float(f"{impls[p]['err_fp64']:.3g}")
                entries.append(entry)
    return by_key, entries


def markdown(context, by_key, entries):
    lines = [f"# tilecraft benchmarks on {context.get('gpu', 'unknown GPU')}", "",
             f"SM clock {context.get('gpu_sm_clock_mhz', '?')} MHz, CUDA driver API {context.get('cuda_driver', '?')}, "
             f"runtime {context.get('cuda_runtime', '?')}, run {context.get('date', '?')}.", "",
             "ratio = tilecraft speed / comparator speed, measured in the same binary on the same data.", "",
             "| benchmark | size | subject | value | comparator | comparator value | unit | ratio |",
             "|---|---:|---|---:|---|---:|---|---:|"]
    for e in entries:
        lines.append(f"| {e['benchmark']} | {e['size']} | {e['subject']} | {e['tilecraft']:.4g} | {e['peer']} | "
                     f"{e['peer_value']:.4g} | {e['unit']} | {e['ratio']:.3f} |")
    errors = [e for e in entries if "err_fp64" in e]
    if errors:
        lines += ["", "## Accuracy: max |C - C64| / max |C64|",
                  "",
                  "C64: the product of the same operands in FP64 (cublasDgemm), computed once a shape, outside "
                  "the timed runs. The last column is the row's speed ratio, for reading the two together.", "",
                  "| benchmark | size | subject | error | comparator | comparator error | speed ratio |",
                  "|---|---:|---|---:|---|---:|---:|"]
        for e in errors:
            lines.append(f"| {e['benchmark']} | {e['size']} | {e['subject']} | {e['err_fp64']:.3g} | {e['peer']} | "
                         f"{e['peer_err_fp64']:.3g} | {e['ratio']:.3f} |")
    return "\n".join(lines) + "\n"


def plots(out_dir, by_key, gpu):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib not available, no plots", file=sys.stderr)
        return []
    families = defaultdict(lambda: defaultdict(list))
    units = {}
    for (family, size), impls in sorted(by_key.items(), key=lambda kv: (kv[0][0], size_key(kv[0][1]))):
        for impl, r in impls.items():
            families[family][impl].append((size, r["value"]))
            units[family] = r["unit"]
    made = []
    for family, impls in families.items():
        fig, ax = plt.subplots(figsize=(6.4, 4))
        multi = any(len(v) > 1 for v in impls.values())
        numeric = all(isinstance(size, int) for pts in impls.values() for size, _ in pts)
        if multi and numeric:
            for impl, pts in sorted(impls.items()):
                xs, ys = zip(*sorted(pts))
                ax.plot(xs, ys, marker="o", label=impl)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("size")
        elif multi:
            # MxNxK sizes: one tick per shape, ordered by the work they stand for.
            shapes = sorted({size for pts in impls.values() for size, _ in pts}, key=size_key)
            where = {size: i for i, size in enumerate(shapes)}
            for impl, pts in sorted(impls.items()):
                pts = sorted(pts, key=lambda p: where[p[0]])
                ax.plot([where[size] for size, _ in pts], [v for _, v in pts], marker="o", label=impl)
            ax.set_xticks(range(len(shapes)))
            ax.set_xticklabels(shapes, rotation=45, ha="right", fontsize=7)
            ax.set_xlabel("size")
        else:
            names = sorted(impls)
            ax.bar(names, [impls[n][0][1] for n in names])
            ax.set_xlabel(f"size {next(iter(impls.values()))[0][0]}")
        ax.set_ylabel(units[family])
        ax.set_title(f"{family} on {gpu}")
        if multi:
            ax.legend()
        fig.tight_layout()
        path = os.path.join(out_dir, f"{family}.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("json", nargs="+", help="Google Benchmark JSON files")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results"),
                    help="results root; a folder named after the GPU is made in it")
    args = ap.parse_args()
    context, rows = load(args.json)
    if not rows:
        sys.exit("report.py: no benchmark rows found")
    gpu = context.get("gpu", "unknown")
    out_dir = os.path.join(args.out, slug(gpu))
    os.makedirs(out_dir, exist_ok=True)
    by_key, entries = summarize(rows)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump({"gpu": gpu, "context": context, "entries": entries}, f, indent=1)
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(markdown(context, by_key, entries))
    made = plots(out_dir, by_key, gpu)
    print(f"report.py: {len(entries)} comparisons, {len(made)} plots -> {out_dir}")
    for e in entries:
        if e["peer"] in PEERS or e["peer"] == "course_unpadded":
            print(f"  {e['benchmark']:>18} {e['size']:>10} {e['subject']:>10} vs {e['peer']:<16} ratio {e['ratio']:.3f}")


if __name__ == "__main__":
    main()
