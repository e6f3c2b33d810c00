// test_gemm's units but the second-unit one (test_gemm_other_tu.cu) as one translation unit, for
// builds with TILECRAFT_MERGED_UNITS (the ci preset): with device code at -O0, a unit's fixed
// cost (the testbed's, cuBLAS's and doctest's headers parsed for the host and for each
// architecture, the host compile) is much of what it costs, and one unit of the five costs about
// a quarter less than five. Built apart everywhere else: at full optimization the units are the
// GPU check's longest compiles, and apart they build in parallel.
#include "test_gemm_launcher.cu"
#include "test_gemm_policies.cu"
#include "test_gemm_policies_library.cu"
#include "test_gemm_policies_f64.cu"
#include "test_gemm_shapes.cu"
#include "test_gemm_tiled.cu"
