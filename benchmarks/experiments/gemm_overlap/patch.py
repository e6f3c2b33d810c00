#!/usr/bin/env python3
"""The split-K reduction overlapped with the GEMM's last blocks (argv[1]: a copy's include folder).

Each K piece's block, once its piece is stored, raises its tail tile's count (a barrier, then
thread 0: a GPU-scope fence and an atomic add); the reduction, launched as the GEMM kernel's
programmatic dependent as before, no longer waits for the whole GEMM grid at its start: thread 0
of each block waits until its tile's count reaches the tile's pieces (an acquire load), the block
meets at a barrier and sums, reading the pieces from L2 (ld.global.cg); it waits for the GEMM
grid (griddepcontrol.wait) only at its end, so that its completion still implies the GEMM's. The
counts sit after the slices in the workspace and are zeroed by a cudaMemsetAsync before the
GEMM (in stream order: nothing reads them before). No deadlock: the reduction's blocks are
scheduled only once every GEMM block has started (programmatic dependent launch), so a waiting
reduction block never keeps a GEMM block from a slot. argv[2] == "memset-only": the counts are
zeroed and raised, but the reduction still waits for the whole GEMM grid at its start (what the
memset and the signals cost alone). Every edit must find its text."""
import sys

root = sys.argv[1] + "/tilecraft/device/detail/"
memset_only = len(sys.argv) > 2 and sys.argv[2] == "memset-only"


def patch(name, edits):
    path = root + name
    s = open(path).read()
    for old, new in edits:
        if s.count(old) != 1:
            sys.exit(f"patch.py: {old[:70]!r} found {s.count(old)} times in {path}")
        s = s.replace(old, new)
    open(path, "w").write(s)


patch("gemm_kernels.cuh", [
    ('#include "../../arch/griddepcontrol.cuh"\n',
     '#include "../../arch/griddepcontrol.cuh"\n#include "../../arch/sync_flag.cuh"\n'),
    ("  std::int64_t units = 0;\n  std::int64_t steps = 0;\n};",
     "  std::int64_t units = 0;\n  std::int64_t steps = 0;\n"
     "  unsigned* ready = nullptr;  // per tail tile: pieces stored (zeroed before the GEMM)\n};"),
    ("    Tiled::template run<VectorFill>(storage, a_part, b_part, out, whole ? tile.m * tm : 0, whole ? tile.n * tn : 0, e);\n",
     "    Tiled::template run<VectorFill>(storage, a_part, b_part, out, whole ? tile.m * tm : 0, whole ? tile.n * tn : 0, e);\n"
     "    if (!whole && slices.ready != nullptr) {\n"
     "      __syncthreads();  // every thread's stores of the piece, before thread 0 raises the count\n"
     "      if (threadIdx.x == 0) {\n"
     "        __threadfence();\n"
     "        atomicAdd(slices.ready + t, 1u);\n"
     "      }\n"
     "    }\n"),
    ("  arch::wait_for_dependencies();  // the GEMM kernel's slices (when launched as a programmatic dependent)\n"
     "  const std::int64_t t = blockIdx.x;\n"
     "  if (slices.units > 0) {\n"
     "    count = static_cast<int>(BalancedSplit{tiles_m * tiles_n - slices.whole, slices.steps, slices.units}.pieces(t));\n"
     "  }\n",
     ("  arch::wait_for_dependencies();\n" if memset_only else "  if (slices.ready == nullptr) arch::wait_for_dependencies();\n") +
     "  const std::int64_t t = blockIdx.x;\n"
     "  if (slices.units > 0) {\n"
     "    count = static_cast<int>(BalancedSplit{tiles_m * tiles_n - slices.whole, slices.steps, slices.units}.pieces(t));\n"
     "  }\n"
     "  if (slices.ready != nullptr && " + ("false" if memset_only else "true") + ") {\n"
     "    if (threadIdx.x == 0) {\n"
     "      while (arch::load_acquire(slices.ready + t) < static_cast<unsigned>(count)) __nanosleep(64);\n"
     "    }\n"
     "    __syncthreads();\n"
     "  }\n"),
    ("          if (valid[j] == vec) {\n"
     "            x[j][u] = *reinterpret_cast<const Vec*>(p + at_slice);\n",
     "          if (valid[j] == vec && sizeof(Vec) == 16) {\n"
     "            const uint4 w = __ldcg(reinterpret_cast<const uint4*>(p + at_slice));\n"
     "            memcpy(&x[j][u], &w, 16);\n"
     "          } else if (valid[j] == vec) {\n"
     "#pragma unroll\n"
     "            for (int i = 0; i < vec; ++i) x[j][u].v[i] = __ldcg(p + at_slice + i);\n"),
    ("            for (int i = 0; i < vec; ++i) x[j][u].v[i] = i < valid[j] ? p[at_slice + i] : T(0);\n",
     "            for (int i = 0; i < vec; ++i) x[j][u].v[i] = i < valid[j] ? __ldcg(p + at_slice + i) : T(0);\n"),
    ("        if (i < valid[j]) dst[i] = epi(sum[j].v[i], reads ? dst[i] : T(0), r[j], col[j] + i);\n"
     "      }\n"
     "    }\n"
     "  }\n"
     "}\n",
     "        if (i < valid[j]) dst[i] = epi(sum[j].v[i], reads ? dst[i] : T(0), r[j], col[j] + i);\n"
     "      }\n"
     "    }\n"
     "  }\n"
     "  if (slices.ready != nullptr) arch::wait_for_dependencies();  // completes after the GEMM grid\n"
     "}\n"),
])

patch("gemm_dispatch.cuh", [
    ("    const std::size_t bytes = static_cast<std::size_t>(plan.slices * tail) * tile_elems * sizeof(T);\n"
     "    if (workspace_alloc(reinterpret_cast<void**>(&slices.partial), bytes, stream, workspace_limit) == cudaSuccess) {\n"
     "      slices = KSlices<T>{plan.whole, plan.k_slice, slices.partial, plan.units,\n"
     "                          ceil_div<std::int64_t>(k, Tiled::shape::tile_k)};\n",
     "    const std::size_t piece_bytes = round_up<std::size_t>(\n"
     "        static_cast<std::size_t>(plan.slices * tail) * tile_elems * sizeof(T), 256);\n"
     "    const std::size_t bytes = piece_bytes + static_cast<std::size_t>(tail) * sizeof(unsigned);\n"
     "    if (workspace_alloc(reinterpret_cast<void**>(&slices.partial), bytes, stream, workspace_limit) == cudaSuccess) {\n"
     "      slices = KSlices<T>{plan.whole, plan.k_slice, slices.partial, plan.units,\n"
     "                          ceil_div<std::int64_t>(k, Tiled::shape::tile_k)};\n"
     "      slices.ready = reinterpret_cast<unsigned*>(reinterpret_cast<unsigned char*>(slices.partial) + piece_bytes);\n"
     "      TILECRAFT_RETURN_IF_ERROR(\n"
     "          cudaMemsetAsync(slices.ready, 0, static_cast<std::size_t>(tail) * sizeof(unsigned), stream));\n"),
])
