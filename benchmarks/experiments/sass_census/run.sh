#!/usr/bin/env bash
# The GEMM kernels' SASS census (issue 21: "check SASS for HMMA, LDSM and spills"): on a machine
# with the CUDA toolkit's cuobjdump (the GPU machine; the development machine has none), builds
# the launchers' instances (tilecraft_gemm_instances) and the benchmark binary for the GPU
# present, and prints per GEMM kernel its HMMA (mma.sync), HGMMA (wgmma), LDSM (ldmatrix) and
# local-memory (LDL / STL: spills) instruction counts. About 3 minutes on 16 cores.
# Usage, from the repository root: bash benchmarks/experiments/sass_census/run.sh OUTDIR
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
b=build/sass_census
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native -DTILECRAFT_BUILD_TESTS=OFF \
  -DTILECRAFT_BUILD_EXAMPLES=OFF -DTILECRAFT_BENCH_VARIANTS=OFF >"$out/build.log" 2>&1 &&
  cmake --build $b -j "$(nproc)" --target tilecraft_bench >>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
for f in $(find $b -name 'libtilecraft_gemm_instances*' -o -name tilecraft_bench -type f); do cuobjdump -sass "$f"; done \
  >"$out/gemm.sass" 2>/dev/null
python3 - "$out/gemm.sass" <<'PY'
import re, subprocess, sys
rows = {}
for f in re.split(r'\n\s+Function : ', open(sys.argv[1]).read())[1:]:
    name = f.split('\n', 1)[0].strip()
    if 'gemm' not in name:
        continue
    count = lambda p: len(re.findall(p, f))
    key = subprocess.run(['c++filt', name], capture_output=True, text=True).stdout.strip()
    key = re.sub(r'tilecraft::|detail::|\(.*', '', key)[:120]
    rows[key] = (count(r'\bHMMA\.'), count(r'\bHGMMA\.'), count(r'\bLDSM\.'), count(r'\bLDL\b'), count(r'\bSTL\b'))
print("| kernel | HMMA | HGMMA | LDSM | LDL | STL |")
print("|---|---:|---:|---:|---:|---:|")
for k, v in sorted(rows.items()):
    if any(v[:3]):
        print(f"| {k} | " + " | ".join(map(str, v)) + " |")
PY
