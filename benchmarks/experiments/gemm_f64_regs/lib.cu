// One variant of the double GEMM behind a plain function, for main.cu. run.sh builds this file
// once per variant with -DV_<name> (which policy), -DFN=gemm_<name> and -DDESC=desc_<name> (the
// function names) and -Dtilecraft=tc_<name>, so that every variant's copy of the library has a
// namespace of its own and all of them link into one binary.
// C = A * B, all column-major (NN), alpha 1, beta 0, through the public tilecraft::gemm<Policy>.
#include <tilecraft/device/gemm.cuh>

#include <cstdio>

namespace f64regs {
#if defined(V_def)
using Policy = void;  // the library's own plan (the policy chosen by shape)
#elif defined(V_L)
using Policy = tilecraft::GemmPolicyLargeF64;  // forced: the control (the default plan's policy here)
#elif defined(V_L1)
// GemmPolicyLargeF64 as it is, but compiled for one block an SM: no 128-register cap.
struct L1Members : tilecraft::detail::LargeF64Members {
  static constexpr int min_blocks_per_sm = 1;
};
using Policy = tilecraft::GemmPolicyOf<L1Members>;
#elif defined(V_L44)
// 128 x 64 tiles of 4 x 4 doubles a thread: 512 threads, one block an SM (128 registers).
struct L44Members : tilecraft::detail::LargeF64Members {
  static constexpr int min_blocks_per_sm = 1;
  using reg_block = tilecraft::RegBlock<4, 4>;
};
using Policy = tilecraft::GemmPolicyOf<L44Members>;
#elif defined(V_M)
using Policy = tilecraft::GemmPolicyMediumF64;  // forced: the control for M2
#elif defined(V_M2)
// GemmPolicyMediumF64 (64 x 64, 4 x 8 a thread, 128 threads) compiled for two blocks an SM
// (up to 255 registers) instead of four (128).
struct M2Members : tilecraft::detail::MediumF64Members {
  static constexpr int min_blocks_per_sm = 2;
};
using Policy = tilecraft::GemmPolicyOf<M2Members>;
#else
#error "lib.cu: define one of V_def, V_L, V_L1, V_L44, V_M, V_M2"
#endif

#if !defined(V_def)
// The variants' intent, checked at compile time.
static_assert(std::is_same_v<Policy::element_type, double>);
#if defined(V_L1) || defined(V_L44)
static_assert(Policy::tile_m == 128 && Policy::tile_n == 64 && Policy::min_blocks_per_sm == 1);
static_assert(Policy::tile_k == tilecraft::GemmPolicyLargeF64::tile_k &&
              Policy::stages == tilecraft::GemmPolicyLargeF64::stages &&
              Policy::lanes_m == tilecraft::GemmPolicyLargeF64::lanes_m);
#endif
#if defined(V_L44)
static_assert(Policy::tiled::threads == 512);
#endif
#if defined(V_M2)
static_assert(Policy::tile_m == 64 && Policy::tile_n == 64 && Policy::min_blocks_per_sm == 2 &&
              Policy::tiled::threads == 128);
#endif
#endif
}  // namespace f64regs

cudaError_t FN(int m, int n, int k, const double* a, const double* b, double* c, cudaStream_t s) {
  return tilecraft::gemm<f64regs::Policy>(tilecraft::Order::col_major, tilecraft::Op::none, tilecraft::Op::none, m, n,
                                          k, 1.0, a, m, b, k, 0.0, c, m, s);
}

// The variant's policy in words (its members as GemmPolicy's positional form names them).
const char* DESC() {
  static char text[320];
#if defined(V_def)
  std::snprintf(text, sizeof text, "the default plan (policy by shape)");
#else
  using P = f64regs::Policy;
  std::snprintf(text, sizeof text,
                "GemmPolicy<%d, %d, RegBlock<%d, %d>, tile_k %d, lanes_m %d, stages %d, min_blocks_per_sm %d, "
                "group_m %d, max_split_k %d, double>: %d threads, %zu B shared",
                P::tile_m, P::tile_n, P::reg_block::rows, P::reg_block::cols, P::tile_k, P::lanes_m, P::stages,
                P::min_blocks_per_sm, P::group_m, P::max_split_k, P::tiled::threads,
                static_cast<std::size_t>(P::tiled::smem_bytes));
#endif
  return text;
}
