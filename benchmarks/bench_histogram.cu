// Histograms: tilecraft::histogram_even / histogram_range against cub::DeviceHistogram and a
// read-only kernel of the same bytes (histogram_bench.cuh names the families). Peers are
// registered before the subject, so it reports `ratio` (to cub) and `ratio_read`.
#include "histogram_bench.cuh"

namespace {
using namespace tilecraft::bench::histogram;
const bool histogram_registered = [] {
  for (const Case& c : cases()) {
    register_case(c, "cub", run_cub);
    register_case(c, "read", run_read);
    register_case(c, "tilecraft", run_tilecraft<void>);
  }
  return true;
}();
}  // namespace
