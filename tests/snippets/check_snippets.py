#!/usr/bin/env python3
"""Compiles every code snippet of the documentation: each `//! \\code ... \\endcode` block of
the public headers and each ```cpp block of README.md, so that no snippet a user copies fails to
compile. All snippets go into one translation unit (one nvcc run), each in a scope that
declares the names snippets use (in, out, rows, cols, ld, r0, c0, tile, d_in, stream, ...);
`#line` directives make compiler errors point at the snippet's own file and line. A snippet
that defines something (a __global__ or __device__ function, a struct, a host function) is
placed at a namespace scope of its own (one with the GEMM's explicit instantiation macros at
global scope); one that calls a host launcher or
cudaMalloc goes in a host function; every other one in a kernel.

A README snippet's part that starts with a `// <file>.cpp, compiled by g++` line (to the block's
end) is a host compiler's file: it is also compiled on its own by CXX (-fsyntax-only, warnings as
errors), as a user's .cpp file would be (the host compiler's forms of the launchers).

usage: check_snippets.py --nvcc NVCC --source DIR --out DIR [--arch sm_80,sm_90a]
                         [--cxx CXX --cuda-include DIR ...]
"""
import argparse
import pathlib
import re
import subprocess
import sys

PRELUDE = r'''#include <cuda_runtime_api.h>
#include <cstddef>
#include <cstdint>
#include <tilecraft/tilecraft.cuh>

namespace snippet_context {
using Tile = tilecraft::SharedMatrix<float, 32, 32>;
using TileA = tilecraft::SharedTile<float, 32, 1>;
using TileB = tilecraft::SharedMatrix<float, 16, 64, tilecraft::Swizzled<16>>;
template <class T>
__device__ void use(const T&) {}
__global__ void my_kernel(float*) {}
}  // namespace snippet_context
'''

DEVICE_OPEN = r'''__global__ void {name}(const float* in, float* out, const float4* in4, const float* d_a, int rows, int cols,
                       int ld, std::int64_t r0, std::int64_t c0, int m, int k, int lda, int i, int j, float x,
                       int tiles, tilecraft::MatrixRef<const float> src) {{
  using namespace snippet_context;
  __shared__ Tile tile;
  {{
'''
HOST_OPEN = r'''void {name}(const float* d_in, float* d_out, std::int64_t n, void* d_temp, cudaStream_t stream,
                       std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t m, std::int64_t k,
                       const float* d_a, const float* d_b, float* d_c, dim3 grid, dim3 block, float* args) {{
  using namespace snippet_context;
  {{
'''
CLOSE = "  }\n}\n"

HOST_MARKERS = ("cudaMalloc", "TILECRAFT_THROW_IF_ERROR", "tilecraft::reduce(", "tilecraft::transpose(", "tilecraft::stencil_1d(", "<<<",
                "tilecraft::gemm(", "tilecraft::gemm_epilogue(",
                "tilecraft::opt_in_dynamic_smem(")


def header_snippets(root):
    for path in sorted((root / "include").rglob("*.cuh")):
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            # A \code not on a line of its own (a reflowed comment) would hide its snippet.
            if "\\code" in lines[i] and lines[i].strip() != "//! \\code":
                raise SystemExit(f"{path}:{i + 1}: \\code must stand alone on a `//! \\code` line")
            if lines[i].strip() == "//! \\code":
                start = i + 1
                body = []
                i += 1
                while i < len(lines) and lines[i].strip() != "//! \\endcode":
                    if "\\endcode" in lines[i] or "\\code" in lines[i]:
                        raise SystemExit(f"{path}:{i + 1}: \\endcode must stand alone on a `//! \\endcode` line")
                    body.append(re.sub(r"^\s*//! ?", "", lines[i]))
                    i += 1
                if i == len(lines):
                    raise SystemExit(f"{path}:{start}: a \\code block without its `//! \\endcode`")
                yield path, start + 1, "\n".join(body)
            i += 1


def readme_snippets(root):
    path = root / "README.md"
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```cpp":
            start = i + 1
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            yield path, start + 1, "\n".join(body)
        i += 1


HOST_FILE = re.compile(r"^// \S+\.cpp, compiled by g\+\+")


def readme_host_parts(root):
    """The README snippets' parts meant for a host compiler (from a `// x.cpp, compiled by g++`
    line to the block's end)."""
    for path, line, body in readme_snippets(root):
        lines = body.splitlines()
        for i, text in enumerate(lines):
            if HOST_FILE.match(text):
                yield path, line + i, "\n".join(lines[i:])
                break


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", default="sm_80,sm_90a")
    ap.add_argument("--cxx")
    ap.add_argument("--cuda-include", action="append", default=[])
    args = ap.parse_args()
    root = pathlib.Path(args.source).resolve()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    parts = [PRELUDE]
    count = 0
    for path, line, body in list(header_snippets(root)) + list(readme_snippets(root)):
        name = f"snippet_{count}"
        count += 1
        located = f'#line {line} "{path}"\n{body}\n'
        # Explicit instantiations (the GEMM's instance macros) name their templates qualified:
        # they go at global scope, which encloses every namespace.
        if re.search(r"^TILECRAFT_GEMM_\w*INSTANCE\(", body, re.M):
            parts.append(located)
        # Definitions (a kernel, a struct, a function) go at namespace scope.
        elif "__global__" in body or re.search(r"^(struct|class|__device__|__host__)\b", body, re.M) or re.search(
                r"^[A-Za-z_][\w:<>]*\s+\w+\([^;]*\)\s*\{\s*$", body, re.M):
            parts.append(f"namespace {name} {{\n{located}}}\n")
        elif any(m in body for m in HOST_MARKERS):
            parts.append(HOST_OPEN.format(name=name) + located + CLOSE)
        else:
            parts.append(DEVICE_OPEN.format(name=name) + located + CLOSE)
    tu = out / "snippets.cu"
    tu.write_text("\n".join(parts))
    # Warnings are errors (a snippet that drops a [[nodiscard]] status fails), except unused
    # variables: a snippet shows a call, not what the caller does with its result.
    # The snippets are checked for the language, not for machine code: PTX only (no ptxas), built
    # for compile speed (-Ofc max: 29 s at -Xcicc -O1, 20 s at -O0, less again with -Ofc max),
    # and the host side checked but not compiled (-fsyntax-only: the host compiler's pass 12 -> 7
    # of the unit's 30 CPU s, nvcc --time, 73 snippets). Not -fdevice-syntax-only (cicc 12 -> 7):
    # it lets a kernel call a host function unreported (nvcc 13.0). Each architecture of --arch
    # (comma-separated) compiles the snippets' device code once more: sm_80 for the cp.async
    # paths, sm_90a for the Hopper branches (TMA, mbarriers, wgmma, griddepcontrol, bulk
    # prefetches) that sm_80 PTX never reaches (about 9 CPU s more).
    gencodes = [f"-gencode=arch=compute_{a.split('_')[-1]},code=compute_{a.split('_')[-1]}" for a in args.arch.split(",")]
    cmd = [args.nvcc, "-std=c++20", *gencodes, "-Ofc", "max", "-I",
           str(root / "include"), "--extended-lambda",
           "--Werror=all-warnings", "-diag-suppress=177,550", "-Xcompiler=-Wall,-Wno-unused-variable,-Werror,-fsyntax-only",
           "-c", str(tu), "-o", str(out / "snippets.o")]
    result = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    print(f"{count} documentation snippets: {'all compile' if result.returncode == 0 else 'FAILED'}")
    status = result.returncode
    # The host compiler's files among the README's snippets, each a unit of its own.
    host_parts = list(readme_host_parts(root))
    if host_parts and not args.cxx:
        print(f"{len(host_parts)} snippet(s) for a host compiler: not compiled (no --cxx)")
    elif host_parts:
        failed = 0
        for n, (path, line, body) in enumerate(host_parts):
            unit = out / f"host_snippet_{n}.cpp"
            unit.write_text(f'#line {line} "{path}"\n{body}\n')
            host_cmd = [args.cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", str(root / "include")]
            for d in args.cuda_include:
                host_cmd += ["-isystem", d]
            host = subprocess.run(host_cmd + [str(unit)], capture_output=True, text=True)
            sys.stdout.write(host.stdout)
            sys.stderr.write(host.stderr)
            failed += host.returncode != 0
        print(f"{len(host_parts)} snippet(s) for a host compiler: {'all compile' if failed == 0 else 'FAILED'}")
        status = status or failed
    return status


if __name__ == "__main__":
    sys.exit(main())
