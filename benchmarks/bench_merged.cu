// The benchmark binary's seven units as one translation unit, for builds with
// TILECRAFT_MERGED_UNITS (the ci preset, which only compiles them): with device code at -O0 a
// unit's fixed cost (Google Benchmark's, CUB's and cuBLAS's headers, parsed for the host and for
// each architecture, the host compile) is much of what it costs: 63.5 CPU s for five of them,
// 115.1 for those five apart (2026-11-24). Built apart everywhere else, where the benchmarks are
// built at full optimization and in parallel.
#include "bench_copy.cu"
#include "bench_gemm.cu"
#include "bench_histogram.cu"
#include "bench_reduce.cu"
#include "bench_scan.cu"
#include "bench_stencil.cu"
#include "bench_transpose.cu"
