#!/usr/bin/env bash
# The GEMM kernels' SASS census (issue 21: "check SASS for HMMA, LDSM and spills"): on a machine
# with the CUDA toolkit's cuobjdump (the GPU machine; the development machine has none), builds
# the launchers' instances (tilecraft_gemm_instances) and the benchmark binary for the GPU
# present, and prints per GEMM kernel its HMMA (mma.sync), HGMMA (wgmma), LDSM (ldmatrix) and
# local-memory (LDL / STL: spills) instruction counts, as a markdown table in OUTDIR/census.md,
# and a short summary on stdout. About 3 minutes on 16 cores.
# Usage, from the repository root: bash benchmarks/experiments/sass_census/run.sh OUTDIR
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
b=build/sass_census
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native -DTILECRAFT_BUILD_TESTS=OFF \
  -DTILECRAFT_BUILD_EXAMPLES=OFF -DTILECRAFT_BENCH_VARIANTS=OFF >"$out/build.log" 2>&1 &&
  cmake --build $b -j "$(nproc)" --target tilecraft_bench >>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
for f in $(find $b -name 'libtilecraft_gemm_instances*' -o -name tilecraft_bench -type f); do cuobjdump -sass "$f"; done \
  >$b/gemm.sass 2>/dev/null
python3 - $b/gemm.sass "$out/census.md" <<'PY'
import re, subprocess, sys
rows = []
for f in re.split(r'\n\s+Function : ', open(sys.argv[1]).read())[1:]:
    name = f.split('\n', 1)[0].strip()
    if 'gemm' not in name:
        continue
    count = lambda p: len(re.findall(p, f))
    try:
        key = subprocess.run(['c++filt', name], capture_output=True, text=True).stdout.strip() or name
    except OSError:
        key = name
    depth = 0  # drop the parameter list: the first '(' outside the template arguments
    for i, c in enumerate(key):
        depth += (c == '<') - (c == '>')
        if c == '(' and depth == 0:
            key = key[:i]
            break
    key = re.sub(r'tilecraft::|detail::', '', key)
    rows.append((key, (count(r'\bHMMA\.'), count(r'\bHGMMA\.'), count(r'\bLDSM\.'), count(r'\bLDL\b'), count(r'\bSTL\b'))))
lines = ["| kernel | HMMA | HGMMA | LDSM | LDL | STL |", "|---|---:|---:|---:|---:|---:|"]
for k, v in sorted(rows):
    lines.append(f"| {k} | " + " | ".join(map(str, v)) + " |")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
tensor = [v for _, v in rows if v[0] or v[1]]
spill = [(k, v) for k, v in rows if v[3] or v[4]]
print(f"{len(rows)} GEMM kernels, {len(tensor)} on tensor cores ({sum(1 for v in tensor if v[1])} wgmma, "
      f"{sum(1 for v in tensor if v[0])} mma.sync; {sum(1 for v in tensor if v[0] and not v[2])} of these without LDSM); "
      f"{len(spill)} with local-memory accesses:")
for k, v in sorted(spill):
    print(f"  LDL {v[3]:4d} STL {v[4]:4d}  {k[:160]}")
PY
