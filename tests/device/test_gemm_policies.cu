// test_gemm (see gemm_testbed.cuh): gemm<Policy> on user configurations and on the defaults
// chosen explicitly, float and double; and one kernel launched from two translation units (this
// file and test_gemm_other_tu.cu), each opting in its own copy.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>

#include "gemm_other_tu.cuh"
#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;
using tilecraft::GemmPolicy;
using tilecraft::RegBlock;

namespace {

// ---- user policies ------------------------------------------------------------------------------

using Policy64 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2>;                 // 2 stages
using Policy32 = GemmPolicy<32, 64, RegBlock<2, 4>, 4, 4, 3>;                 // TK = 4, float2 A fragments
using Policy128 = GemmPolicy<128, 64, RegBlock<8, 4>, 16, 4, 4>;              // TK = 16, 4 stages
using Policy64Group3 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2, 1, 3, 1>;  // groups of 3 tile rows, K never split
static_assert(Policy64::tiled::threads == 256 && Policy32::tiled::threads == 256 && Policy128::tiled::threads == 256);
// Above the 48 KiB of static shared memory: the launcher's dynamic opt-in path.
static_assert(Policy128::tiled::smem_bytes > 48 * 1024);

// Double: 2 stages; TK = 4 with 2 x 4 doubles (one double2 A vector, two B vectors); 8 x 8
// doubles per thread (128 accumulator registers: the limit of what fits); TK = 16 above 48 KiB
// (the dynamic opt-in path); groups of 3 tile rows with K never split.
using PolicyF64_64 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2, 1, 8, 16, double>;
using PolicyF64_32 = GemmPolicy<32, 64, RegBlock<2, 4>, 4, 4, 3, 1, 8, 16, double>;
using PolicyF64_8x8 = GemmPolicy<128, 128, RegBlock<8, 8>, 8, 4, 2, 1, 8, 16, double>;
using PolicyF64_128 = GemmPolicy<128, 64, RegBlock<4, 8>, 16, 4, 2, 1, 8, 16, double>;
using PolicyF64_Group3 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2, 1, 3, 1, double>;
static_assert(PolicyF64_128::tiled::smem_bytes > 48 * 1024 && PolicyF64_128::tiled::smem_bytes <= 64 * 1024);

// ---- user configurations -------------------------------------------------------------------------

template <class Policy>
void check_policy() {
  using T = typename Policy::element_type;
  int device = 0, optin = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (Policy::tiled::smem_bytes > static_cast<std::size_t>(optin)) {
    // More shared memory than this device gives a block (GemmPolicyLarge and GemmPolicyHuge on
    // sm_75): refused before anything runs, C left alone.
    MESSAGE("the policy does not fit this device: checking that gemm refuses it");
    const Problem<T> p = make_problem(combos[0], 33, 31, 17, layouts[0], T(1), T(0));
    const HostData<T> h = make_data(p, 4999);
    DeviceData<T> d(h);
    CHECK(run_gemm<T, Policy>(p, d.a.get(), d.b.get(), d.c.get(), nullptr) == cudaErrorInvalidValue);
    tilecraft::test::sync_and_check();
    CHECK(same_buffer(d.c.download(), h.c));
    return;
  }
  const std::int64_t shapes[][3] = {{1, 1, 1},     {33, 31, 17},  {127, 129, 65}, {300, 200, 33},
                                    {70, 90, 300}, {64, 128, 40}, {3, 5, 4100}};
  // {3, 5, 4100}: K split (unless the policy never splits).
  const auto run = run_gemm<T, Policy>(tunables_split_small());
  const bool full = full_run();
  std::uint64_t salt = 5000;
  int variant = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (const Combo& c : combos) {
      for (int l : layouts_for(variant, full)) {
        const Problem<T> p =
            make_problem(c, s[0], s[1], s[2], layouts[l], variant % 2 ? T(1) : T(-0.5), variant % 3 ? T(0) : T(2));
        check_gemm(p, ++salt, run, nullptr, true);
      }
      ++variant;
    }
  }
}
}  // namespace

TEST_CASE_TEMPLATE("gemm<Policy>: user configurations and the defaults, chosen explicitly", Policy, Policy64, Policy32,
                   Policy128, Policy64Group3, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLarge3,
                   tilecraft::GemmPolicyHuge, tilecraft::GemmPolicySkinny, tilecraft::GemmPolicyMedium,
                   tilecraft::GemmPolicySmall) {
  check_policy<Policy>();
}

TEST_CASE_TEMPLATE("gemm<Policy> for double: user configurations and the defaults, chosen explicitly", Policy,
                   PolicyF64_64, PolicyF64_32, PolicyF64_8x8, PolicyF64_128, PolicyF64_Group3,
                   tilecraft::GemmPolicyLargeF64, tilecraft::GemmPolicyMediumF64, tilecraft::GemmPolicySmallF64) {
  check_policy<Policy>();
}

TEST_CASE("gemm: one kernel launched from two translation units, each opting in its own copy") {
  // gemm<GemmPolicyDeep> (this file) and the vector-only launcher entry (test_gemm_other_tu.cu)
  // launch the same kernel instantiation, each file its own copy, which needs its own opt-in to
  // 52 KiB of shared memory: the launcher once remembered the opt-in per template instantiation
  // (one flag for all files), and whichever file came second failed with cudaErrorInvalidValue.
  // A^T as stored and B row-major, aligned with leading dimensions of multiples of 4, so that
  // gemm<GemmPolicyDeep> runs the vector kernel too; alternating which file goes first.
  using tilecraft::test::GemmPolicyDeep;
  auto other_tu = [](const Problem<float>& p, const float* a, const float* b, float* c, cudaStream_t stream) {
    return tilecraft::test::gemm_deep_vector_only_in_other_tu(p.m, p.n, p.k, p.alpha, a, p.lda(), b, p.ldb(), p.beta, c,
                                                              p.ldc(), stream);
  };
  std::uint64_t salt = 9100;
  for (int v = 0; v < 6; ++v) {
    const Problem<float> p =
        make_problem(combos[1], 70 + 31 * v, 45 + 17 * v, 33 + 40 * v, layouts[1], 1.0f, v % 2 ? 0.0f : -0.5f);
    if (v % 2 == 0) {
      check_gemm(p, ++salt, run_gemm<float, GemmPolicyDeep>, nullptr, true);
      check_gemm(p, ++salt, other_tu, nullptr, true);
    } else {
      check_gemm(p, ++salt, other_tu, nullptr, true);
      check_gemm(p, ++salt, run_gemm<float, GemmPolicyDeep>, nullptr, true);
    }
  }
}
