#!/usr/bin/env python3
"""Each kernel's median duration from Nsight Compute's CSV of gpu__time_duration.sum (the file
named, or stdin): one line a kernel, in the order first profiled, in microseconds."""
import collections
import csv
import statistics
import sys

source = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
rows = [r for r in csv.reader(source) if len(r) > 10]
if not rows:
    sys.exit("no kernels profiled")
head, body = rows[0], rows[1:]
k, v, u = head.index("Kernel Name"), head.index("Metric Value"), head.index("Metric Unit")
scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}
times = collections.OrderedDict()
for r in body:
    times.setdefault(r[k][:90], []).append(float(r[v].replace(",", "")) * scale.get(r[u], 1.0))
for name, xs in times.items():
    print(f"{statistics.median(xs):9.2f} us  (n={len(xs)})  {name}")
