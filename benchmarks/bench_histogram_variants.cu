// Tuning variants of the histograms (benchmarks/TUNING.md, "Histogram"), named
// <family>/tc_<threads>x<vectors>_w<warps per copy>_l<lane bins>_b<blocks per SM>[_r0]/<n>
// (_r0: no whole-vector runs). Built only with -DTILECRAFT_BENCH_VARIANTS=ON and registered only
// when the environment variable TILECRAFT_BENCH_VARIANTS is set (benchmarks/experiment.sh does
// both), after the default run's peers, whose times they report their ratios to.
#include <cstdlib>

#include "histogram_bench.cuh"

namespace {
using namespace tilecraft::bench::histogram;

template <class Policy>
std::string variant_name() {
  return "tc_" + std::to_string(Policy::threads) + "x" + std::to_string(Policy::vectors_per_thread) + "_w" +
         std::to_string(Policy::warps_per_copy) + "_l" + std::to_string(Policy::lane_max_bins) + "_b" +
         std::to_string(Policy::blocks_per_sm) + (Policy::vector_runs ? "" : "_r0");
}

template <class Policy>
void register_variant(Kind kind) {
  for (const Case& c : cases()) {
    if (c.kind == kind && c.n == (std::int64_t{1} << 28))
      register_case(c, variant_name<Policy>(), run_tilecraft<Policy>);
  }
}

const bool histogram_variants_registered = [] {
  if (std::getenv("TILECRAFT_BENCH_VARIANTS") == nullptr) return false;
  using tilecraft::HistogramPolicy;
  register_variant<HistogramPolicy<256, 8, 8, 256, 3>>(Kind::u8_256);  // one lane copy per block
  register_variant<HistogramPolicy<256, 8, 2, 256, 2>>(Kind::u8_256);  // four lane copies
  register_variant<HistogramPolicy<256, 4, 4, 256, 3>>(Kind::u8_256);
  register_variant<HistogramPolicy<256, 16, 4, 256, 3>>(Kind::u8_256);
  register_variant<HistogramPolicy<512, 8, 4, 256, 2>>(Kind::u8_256);
  register_variant<HistogramPolicy<256, 8, 1, 0, 3>>(Kind::u8_256);           // warp sub-histograms, no lanes
  register_variant<HistogramPolicy<256, 8, 8, 0, 4>>(Kind::u8_256);           // one block histogram
  register_variant<HistogramPolicy<256, 8, 4, 256, 3, false>>(Kind::u8_256);  // no whole-vector runs
  register_variant<HistogramPolicy<256, 8, 4, 256, 3, false>>(Kind::i32_2048);
  register_variant<HistogramPolicy<256, 8, 8, 256, 3>>(Kind::f32_64);
  register_variant<HistogramPolicy<256, 4, 4, 256, 4>>(Kind::f32_64);
  register_variant<HistogramPolicy<256, 8, 1, 0, 3>>(Kind::f32_64);
  register_variant<HistogramPolicy<256, 8, 1, 0, 3>>(Kind::i32_2048);  // a sub-histogram per warp
  register_variant<HistogramPolicy<256, 8, 8, 0, 3>>(Kind::i32_2048);  // one per block
  register_variant<HistogramPolicy<256, 4, 2, 0, 4>>(Kind::i32_2048);
  return true;
}();
}  // namespace
