//! \file device/detail/gemm_dispatch.cuh
//! The device GEMM's dispatch: follows the plan (gemm_plan.cuh), allocates workspace, packs
//! and launches (gemm_kernels.cuh). Glue only: every decision is a plan function.
//!   gemm_run / gemm_epilogue_run   check the arguments once, BLAS's quick returns
//!   -> dispatch<Policy>            the row-major problem, the device, the policy by shape,
//!                                  the ragged edge peeled off (run_edges, gemm_thin_kernels.cuh)
//!                                  and launched beside the first product (LaunchAfter)
//!   -> run_packed<P, PV, PH>       packing and panels; per product the policy (P, or the
//!                                  vector / huge policy where the operands fill in vectors)
//!   -> launch_product<P>           split-K workspace, the kernel for the operands' orders,
//!                                  the kernels to run beside it, the split-K reduction
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <numeric>
#include <type_traits>

#include "../../config.cuh"
#include "../../gemm/epilogue.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/launch.cuh"
#include "../../util/nvtx.cuh"
#include "../../util/status.cuh"
#include "../gemm_policy.cuh"
#include "../transpose.cuh"
#include "../workspace.cuh"
#include "gemm_kernels.cuh"
#include "gemm_plan.cuh"
#include "gemm_thin_kernels.cuh"
#include "pack_copy.cuh"

#if defined(__CUDACC__)

namespace tilecraft::detail {

//! Kernels launch_product launches right after its GEMM kernel (the ragged edge's thin
//! products), each as the programmatic dependent of the kernel before it where the device runs
//! griddepcontrol: they start once every block of the GEMM kernel has started (it executes
//! arch::launch_dependents first thing) and take the block slots its waves leave free, rather
//! than the slots its first wave needs (launched before it, they held half of an SM's registers
//! each until done, and the GEMM kernel's blocks waited for them). What that takes of them:
//!   - none reads or writes what the product's kernels (the GEMM kernel, the split-K
//!     reduction) write, and none writes what they read;
//!   - each one launched as a dependent waits for the kernel before it as it exits, so the
//!     last one's completion implies the GEMM kernel's and all of theirs (the split-K
//!     reduction, launched after them, waits for the last one; the stream's later work waits
//!     for it as for any kernel);
//!   - each executes arch::launch_dependents early: for speed only (otherwise the kernel after
//!     it starts as it completes).
//! Empty (launch == nullptr): none.
struct LaunchAfter {
  cudaError_t (*launch)(void* context, cudaStream_t stream) = nullptr;
  void* context = nullptr;
  [[nodiscard]] bool empty() const { return launch == nullptr; }
};

//! Whether a grid of one block per `tile_m` x `tile_n` tile of rows x cols fits 2^31 - 1 blocks.
inline bool grid_fits(std::int64_t rows, std::int64_t cols, std::int64_t tile_m, std::int64_t tile_n) {
  return ceil_div(rows, tile_m) <= INT_MAX / ceil_div(cols, tile_n);
}

//! One product C = epi(a * b) on Policy: the last wave's tiles (or all) with K split as
//! split_k_plan says (when workspace can be had, at most workspace_limit bytes where that is
//! not negative: GemmTunables), the kernel for the operands' orders, with `after`'s kernels
//! launched beside it when there are any.
//! VectorOnly: instantiate only the kernel for a column-major a and a row-major b filled in
//! vectors (run_packed's VectorPolicy and HugePolicy, for products it has checked fill so).
template <class Policy, bool VectorOnly = false, class T, class Epilogue>
[[nodiscard]] cudaError_t launch_product(const GemmProblem<T>& p, LauncherEpilogue<T, Epilogue> epi, int sms,
                                         const GemmSplitLimits& split_limits, cudaStream_t stream,
                                         const LaunchAfter& after = {}, std::int64_t workspace_limit = -1) {
  using Tiled = typename Policy::tiled;
  static_assert(std::is_same_v<typename Policy::element_type, T>, "launch_product: Policy must be for T");
  const MatrixRef<T> c = p.c;
  const std::int64_t k = p.a.cols;
  if (!grid_fits(c.rows, c.cols, Tiled::shape::tile_m, Tiled::shape::tile_n)) return cudaErrorInvalidValue;
  if (ceil_div<std::int64_t>(k, Tiled::shape::tile_k) > INT_MAX) return cudaErrorInvalidValue;  // int step count
  const std::int64_t tiles_m = ceil_div<std::int64_t>(c.rows, Tiled::shape::tile_m);
  const std::int64_t tiles_n = ceil_div<std::int64_t>(c.cols, Tiled::shape::tile_n);
  const std::int64_t tiles = tiles_m * tiles_n;
  // The operands as views in their own order: a is M x K, b is K x N.
  auto as = [](const MatrixRef<const T>& x, auto order) {
    return MatrixRef<const T, decltype(order)::value>{x.data, x.rows, x.cols, x.ld};
  };
  using Row = std::integral_constant<Order, Order::row_major>;
  using Col = std::integral_constant<Order, Order::col_major>;
  // Whether the kernel launched fills in vectors (the launch below picks it by this). K steps
  // are dealt out (gemm_kernel) where it does, and for float where it does not (element_deals:
  // on a kernel of its own; not measured for double). Not where kernels run beside it (`after`,
  // the ragged edge's): they take the block slots its last wave leaves free, and a deal fills
  // every slot (4097 x 4095 x 4093: 0.942 -> 0.893 of cuBLAS when its last wave of 464 tiles was
  // dealt to all 528 slots; benchmarks/TUNING.md).
  constexpr bool element_deals = std::is_same_v<T, float> && Policy::max_split_k > 1 && !VectorOnly;
  const bool vector_kernel = [&] {
    const bool a_row = p.order_a == Order::row_major, b_row = p.order_b == Order::row_major;
    if (a_row && !b_row) return false;  // both K-contiguous: the element-by-element kernel
    return a_row ? Tiled::vector_fill_ok(as(p.a, Row{}), as(p.b, Row{}))
                 : (b_row ? Tiled::vector_fill_ok(as(p.a, Col{}), as(p.b, Row{}))
                          : Tiled::vector_fill_ok(as(p.a, Col{}), as(p.b, Col{})));
  }();
  GemmSplitLimits limits = split_limits;
  limits.balanced = limits.balanced && (vector_kernel || element_deals) && after.empty();
  SplitPlan plan = split_k_plan(facts_of<Policy>(), c.rows, c.cols, k, sms, limits);
  const std::int64_t tail = tiles - plan.whole;
  // The blocks after the whole tiles': tail x slices, or the units the tail's steps are dealt to.
  auto split_units = [&] { return plan.units > 0 ? plan.units : tail * plan.slices; };
  if (plan.slices > 1 && plan.whole + split_units() > INT_MAX) plan = SplitPlan{1, k};  // one block a unit
  KSlices<T> slices{tiles, k, nullptr};
  if (plan.slices > 1) {
    constexpr auto tile_elems = static_cast<std::size_t>(Tiled::shape::tile_m) * Tiled::shape::tile_n;
    const std::size_t bytes = static_cast<std::size_t>(plan.slices * tail) * tile_elems * sizeof(T);
    if (workspace_alloc(reinterpret_cast<void**>(&slices.partial), bytes, stream, workspace_limit) == cudaSuccess) {
      slices = KSlices<T>{plan.whole, plan.k_slice, slices.partial, plan.units,
                          ceil_div<std::int64_t>(k, Tiled::shape::tile_k)};
    } else {
      plan = SplitPlan{1, k};  // no workspace (no memory pools, or no memory): unsplit
    }
  }
  const std::int64_t units = slices.partial != nullptr ? plan.whole + split_units() : tiles;

  auto launch = [&](auto a, auto b) -> cudaError_t {
    constexpr Order oa = decltype(a)::order;
    constexpr Order ob = decltype(b)::order;
    if (VectorOnly && !vector_kernel) return cudaErrorInvalidValue;  // (the caller checks it)
    // With both operands K-contiguous nothing fills in vectors: one kernel serves either way.
    // The vector fills carry the loop of dealt shares always. The element-by-element fill has a
    // kernel with it for dealt plans and one without for the rest: the loop cost GemmPolicyMedium's
    // undealt products 3-4%, while the deal ran 1111 x 1333 x 1777 10% sooner. 128 x 128 tiles
    // take the loop's kernel undealt too: it ran their undealt element fill 4-5% sooner (1025^3,
    // 1031 x 1029 x 1027; benchmarks/TUNING.md), so theirs is the only element-fill kernel.
    constexpr bool any_vector = oa == Order::col_major || ob == Order::row_major;
    constexpr bool element_loop = element_deals && Policy::tile_m * Policy::tile_n >= 128 * 128;
    using E = LauncherEpilogue<T, Epilogue>;
    constexpr bool deal = any_vector || element_loop;  // the first kernel's Deal
    auto* kernel = gemm_kernel<Policy, oa, ob, any_vector, deal, E>;
    if constexpr (!VectorOnly && any_vector) {
      if (!vector_kernel) kernel = gemm_kernel<Policy, oa, ob, false, element_loop, E>;
    }
    if constexpr (element_deals && !element_loop) {
      if (!vector_kernel && slices.units > 0) kernel = gemm_kernel<Policy, oa, ob, false, true, E>;
    }
    // (opt_in_once's refusal returned as it is, never through the slot-clearing macro.)
    if (const cudaError_t opted = opt_in_once(kernel, Tiled::smem_bytes); opted != cudaSuccess) return opted;
    TILECRAFT_RETURN_IF_ERROR(launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(Tiled::threads),
                                            Tiled::smem_bytes, stream, a, b, c, epi, tiles_m, tiles_n, slices));
    return after.empty() ? cudaSuccess : after.launch(after.context, stream);
  };
  cudaError_t status = cudaSuccess;
  if constexpr (VectorOnly) {
    const bool vector_orders = p.order_a == Order::col_major && p.order_b == Order::row_major;
    status = vector_orders ? launch(as(p.a, Col{}), as(p.b, Row{})) : cudaErrorInvalidValue;
  } else if (p.order_a == Order::row_major) {
    status =
        p.order_b == Order::row_major ? launch(as(p.a, Row{}), as(p.b, Row{})) : launch(as(p.a, Row{}), as(p.b, Col{}));
  } else {
    status =
        p.order_b == Order::row_major ? launch(as(p.a, Col{}), as(p.b, Row{})) : launch(as(p.a, Col{}), as(p.b, Col{}));
  }
  if (slices.partial != nullptr) {
    if (status == cudaSuccess) {
      using Shape = SplitReduceShape<T, Tiled::shape::tile_m, Tiled::shape::tile_n>;
      const dim3 grid(static_cast<unsigned>(tail), Shape::chunks);  // tail <= units <= INT_MAX
      auto* reduce = gemm_split_k_reduce_kernel<T, Tiled::shape::tile_m, Tiled::shape::tile_n, Policy::group_m,
                                                LauncherEpilogue<T, Epilogue>>;
      if (waits_for_dependency(reinterpret_cast<const void*>(reduce))) {
        // A programmatic dependent of the GEMM kernel (or of the last of `after`'s kernels,
        // whose completion implies the GEMM kernel's): its launch overlaps the slices' tail.
        status = launch_dependent(reduce, grid, dim3(Shape::threads), 0, stream, slices, static_cast<int>(plan.slices),
                                  tiles_m, tiles_n, c, epi);
      } else {
        status = launch_kernel(reduce, grid, dim3(Shape::threads), 0, stream, slices, static_cast<int>(plan.slices),
                               tiles_m, tiles_n, c, epi);
      }
    }
    const cudaError_t freed = workspace_free(slices.partial, stream);
    if (status == cudaSuccess) status = freed;
  }
  return status;
}

//! A policy's tile as {rows, columns}; {1, 1} for none (void).
template <class Policy>
constexpr std::int64_t tile_extent(int dim) {
  if constexpr (std::is_void_v<Policy>) {
    return 1;
  } else {
    return dim == 0 ? Policy::tile_m : Policy::tile_n;
  }
}

//! Zeroes elements extent ... ld - 1 of each of the `lines` rows (leading dimension ld) at
//! `data`: the padding of an operand packed by a transpose (copy_rows zeroes its own), which
//! the kernels read as rows (columns) of whole tiles and multiply into C's rows past its end,
//! never stored. (Uninitialized, it would also be what compute-sanitizer's initcheck reports:
//! it counts all 16 bytes of a vector copy whose source size stops at the extent.)
template <class T>
[[nodiscard]] cudaError_t zero_padding(T* data, std::int64_t ld, std::int64_t extent, std::int64_t lines,
                                       cudaStream_t stream) {
  if (ld == extent || lines == 0) return cudaSuccess;
  return returned_status(cudaMemset2DAsync(data + extent, static_cast<std::size_t>(ld) * sizeof(T), 0,
                                           static_cast<std::size_t>(ld - extent) * sizeof(T),
                                           static_cast<std::size_t>(lines), stream));
}

//! C = epi(a * b), packing operands first as pack_plan says (unpacked when no workspace can be
//! had). VectorPolicy (void: none) replaces Policy for every product whose
//! operands both fill in vectors, packed or not, and HugePolicy (void: none) replaces
//! VectorPolicy where huge_policy_pays. `after`'s kernels run beside the first product's.
template <class Policy, class VectorPolicy = void, class HugePolicy = void, class T, class Epilogue>
[[nodiscard]] cudaError_t run_packed(const GemmProblem<T>& p, const LauncherEpilogue<T, Epilogue>& epi, int sms,
                                     const GemmTunables& tunables, cudaStream_t stream, const LaunchAfter& after = {}) {
  static_assert(std::is_void_v<HugePolicy> || !std::is_void_v<VectorPolicy>,
                "run_packed: HugePolicy needs a VectorPolicy");
  auto product = [&](const GemmProblem<T>& q, const LauncherEpilogue<T, Epilogue>& e,
                     const LaunchAfter& beside) -> cudaError_t {
    if constexpr (!std::is_void_v<VectorPolicy>) {
      if (both_fill_in_vectors(q)) {
        if constexpr (!std::is_void_v<HugePolicy>) {
          if (huge_policy_pays(facts_of<HugePolicy>(), q.c.rows, q.c.cols, q.a.cols, sms, tunables.huge)) {
            return launch_product<HugePolicy, true>(q, e, sms, tunables.split, stream, beside,
                                                    tunables.workspace_limit);
          }
        }
        return launch_product<VectorPolicy, true>(q, e, sms, tunables.split, stream, beside, tunables.workspace_limit);
      }
    }
    return launch_product<Policy>(q, e, sms, tunables.split, stream, beside, tunables.workspace_limit);
  };
  // Panels are whole tiles of every policy that may multiply them.
  constexpr std::int64_t panel_tile_m =
      std::lcm(std::lcm(tile_extent<Policy>(0), tile_extent<VectorPolicy>(0)), tile_extent<HugePolicy>(0));
  constexpr std::int64_t panel_tile_n =
      std::lcm(std::lcm(tile_extent<Policy>(1), tile_extent<VectorPolicy>(1)), tile_extent<HugePolicy>(1));
  static_assert(panel_tile_m % (16 / sizeof(T)) == 0 && panel_tile_n % (16 / sizeof(T)) == 0,
                "run_packed: the panels' tiles must be whole 16-byte vectors (packed leading dimensions are "
                "multiples of them, and the vector fill needs rows of whole vectors)");
  const PackPlan plan = pack_plan(p, panel_tile_m, panel_tile_n, tunables.pack);
  T* workspace = nullptr;
  if (!plan.packs() || workspace_alloc(reinterpret_cast<void**>(&workspace),
                                       static_cast<std::size_t>(plan.a_elems + plan.b_elems) * sizeof(T), stream,
                                       tunables.workspace_limit) != cudaSuccess) {
    return product(p, epi, after);
  }
  T* const packed_a = workspace;
  T* const packed_b = workspace + plan.a_elems;  // a_elems is a multiple of a vector: 16-byte aligned
  const std::int64_t m = p.c.rows, n = p.c.cols, k = p.a.cols;
  // B in one panel is packed once, for every panel of A (the products of a stream read it in
  // turn and none writes it); in panels it is packed again for each panel of A, as the budget
  // holds one panel of each operand.
  const bool b_whole = plan.panel_n >= n;
  cudaError_t status = cudaSuccess;
  for (std::int64_t r0 = 0; r0 < m && status == cudaSuccess; r0 += plan.panel_m) {
    const std::int64_t rows = m - r0 < plan.panel_m ? m - r0 : plan.panel_m;
    // Rows [r0, r0 + rows) of a: row-major (packed: transposed into the K x rows row-major
    // matrix, which is the column-major rows x K view) or column-major (r0 elements in; packed:
    // its K columns of `rows` elements copied to aligned ones).
    GemmProblem<T> q = p;
    const bool a_rows = k_contiguous_a(p.order_a);
    q.a = {a_rows ? p.a.data + r0 * p.a.ld : p.a.data + r0, rows, k, p.a.ld};
    if (plan.pack_a) {
      status = a_rows ? transpose(q.a.data, p.a.ld, packed_a, plan.ld_a, rows, k, stream)
                      : copy_rows(q.a.data, p.a.ld, packed_a, plan.ld_a, k, rows, stream);
      if (status == cudaSuccess && a_rows) status = zero_padding(packed_a, plan.ld_a, rows, k, stream);
      // The packed rows as whole tiles (zeros past `rows`): the kernels read them, multiply
      // them and store only C's rows, and no tile's fill takes the edge path along M.
      q.a = {packed_a, round_up<std::int64_t>(rows, panel_tile_m), k, plan.ld_a};
      q.order_a = Order::col_major;
    }
    for (std::int64_t c0 = 0; c0 < n && status == cudaSuccess; c0 += plan.panel_n) {
      const std::int64_t cols = n - c0 < plan.panel_n ? n - c0 : plan.panel_n;
      // Columns [c0, c0 + cols) of b: column-major (packed: the transposed cols x K rows are
      // the row-major K x cols matrix) or row-major (c0 elements in; packed: its K rows of
      // `cols` elements copied to aligned ones).
      const bool b_cols = k_contiguous_b(p.order_b);
      q.b = {b_cols ? p.b.data + c0 * p.b.ld : p.b.data + c0, k, cols, p.b.ld};
      q.order_b = p.order_b;
      if (plan.pack_b) {
        if (!b_whole || r0 == 0) {
          status = b_cols ? transpose(q.b.data, p.b.ld, packed_b, plan.ld_b, cols, k, stream)
                          : copy_rows(q.b.data, p.b.ld, packed_b, plan.ld_b, k, cols, stream);
          if (status == cudaSuccess && b_cols) status = zero_padding(packed_b, plan.ld_b, cols, k, stream);
          if (status != cudaSuccess) break;
        }
        q.b = {packed_b, k, round_up<std::int64_t>(cols, panel_tile_n), plan.ld_b};  // (as A's)
        q.order_b = Order::row_major;
      }
      q.c = {p.c.data + r0 * p.c.ld + c0, rows, cols, p.c.ld};
      LauncherEpilogue<T, Epilogue> e = epi;
      e.row0 += r0;
      e.col0 += c0;
      status = product(q, e, r0 == 0 && c0 == 0 ? after : LaunchAfter{});
    }
  }
  const cudaError_t freed = workspace_free(workspace, stream);
  return status != cudaSuccess ? status : freed;
}

//! C = epi(a * b) on the policies of a default choice, `after`'s kernels beside the first product.
template <class T, class Epilogue>
[[nodiscard]] cudaError_t run_choice(GemmChoice choice, const GemmProblem<T>& p,
                                     const LauncherEpilogue<T, Epilogue>& epi, int sms, const GemmTunables& tuned,
                                     cudaStream_t stream, const LaunchAfter& after = {}) {
  // The defaults' rules, checked here, where all of them are instantiated anyway (at namespace
  // scope in gemm_policy.cuh they cost every unit that includes it, calling gemm() or not,
  // about 3 s of instantiation and constant evaluation at three architectures). Every default
  // but GemmPolicyLarge and the vector ones fits the smallest per-block limit of the supported
  // GPUs (sm_75: 64 KiB), so gemm() has a configuration for every device; the double defaults
  // fit the static 48 KiB. dispatch() checks the grid of a call with the default policies
  // against the smallest tile side among them: GemmPolicySmall's (float) and
  // GemmPolicySmallF64's (double).
  if constexpr (std::is_same_v<T, double>) {
    static_assert(GemmPolicyLargeF64::tiled::smem_bytes <= 48 * 1024 &&
                      GemmPolicyMediumF64::tiled::smem_bytes <= 48 * 1024 &&
                      GemmPolicySmallF64::tiled::smem_bytes <= 48 * 1024,
                  "gemm: the double default policies must fit 48 KiB of shared memory");
    static_assert(GemmPolicySmallF64::tile_m <= GemmPolicySmallF64::tile_n &&
                      GemmPolicySmallF64::tile_m <= GemmPolicyMediumF64::tile_m &&
                      GemmPolicySmallF64::tile_m <= GemmPolicyLargeF64::tile_n,
                  "gemm: GemmPolicySmallF64 must have the smallest tile side of the double defaults");
  } else {
    static_assert(
        GemmPolicyLarge3::tiled::smem_bytes <= 64 * 1024 && GemmPolicySkinny::tiled::smem_bytes <= 64 * 1024 &&
            GemmPolicyMedium::tiled::smem_bytes <= 64 * 1024 && GemmPolicySmall::tiled::smem_bytes <= 64 * 1024,
        "gemm: the fallback default policies must fit 64 KiB of shared memory (sm_75)");
    static_assert(GemmPolicyHuge::tiled::smem_bytes <= GemmPolicyLargeVector::tiled::smem_bytes,
                  "gemm: GemmPolicyHuge must fit wherever GemmPolicyLargeVector does");
    static_assert(GemmPolicySmall::tile_m <= 64 && GemmPolicySmall::tile_m <= GemmPolicySmall::tile_n &&
                      GemmPolicySmall::tile_m <= GemmPolicyMedium::tile_m &&
                      GemmPolicySmall::tile_m <= GemmPolicySkinny::tile_m &&
                      GemmPolicySmall::tile_m <= GemmPolicyLarge3::tile_m,
                  "gemm: GemmPolicySmall must have the smallest tile side of the float defaults");
  }
  if constexpr (std::is_same_v<T, double>) {
    if (choice == GemmChoice::large_f64) return run_packed<GemmPolicyLargeF64>(p, epi, sms, tuned, stream, after);
    if (choice == GemmChoice::medium_f64) return run_packed<GemmPolicyMediumF64>(p, epi, sms, tuned, stream, after);
    return run_packed<GemmPolicySmallF64>(p, epi, sms, tuned, stream, after);
  } else {
    switch (choice) {
      case GemmChoice::large3:
        return run_packed<GemmPolicyLarge3>(p, epi, sms, tuned, stream, after);
      case GemmChoice::large:
        return run_packed<GemmPolicyLarge>(p, epi, sms, tuned, stream, after);
      case GemmChoice::large_huge:
        return run_packed<GemmPolicyLarge, GemmPolicyLarge, GemmPolicyHuge>(p, epi, sms, tuned, stream, after);
      case GemmChoice::skinny:
        return run_packed<GemmPolicySkinny>(p, epi, sms, tuned, stream, after);
      case GemmChoice::medium:
        return run_packed<GemmPolicyMedium>(p, epi, sms, tuned, stream, after);
      default:
        return run_packed<GemmPolicySmall>(p, epi, sms, tuned, stream, after);
    }
  }
}

//! The shortest K step among the policies dispatch may run: Policy's, or the defaults' for T.
template <class Policy, class T>
constexpr std::int64_t shortest_k_step() {
  if constexpr (!std::is_void_v<Policy>) {
    return Policy::tile_k;
  } else {
    const auto shortest = [](auto... policies) {
      std::int64_t k = INT_MAX;
      ((k = decltype(policies)::tile_k < k ? decltype(policies)::tile_k : k), ...);
      return k;
    };
    if constexpr (std::is_same_v<T, float>) {
      return shortest(GemmPolicyLarge{}, GemmPolicyLarge3{}, GemmPolicyHuge{}, GemmPolicySkinny{}, GemmPolicyMedium{},
                      GemmPolicySmall{});
    } else {
      return shortest(GemmPolicyLargeF64{}, GemmPolicyMediumF64{}, GemmPolicySmallF64{});
    }
  }
}

//! C = epi(op(A) * op(B), C) for a checked call with m, n > 0: the row-major problem, the
//! default policy by shape (Policy void) or the user's. The default path peels C's ragged edge
//! off into thin products where edge_plan says so.
template <class Policy, class T, class Epilogue>
[[nodiscard]] cudaError_t dispatch(const GemmProblem<T>& p, const Epilogue& user_epi, const GemmTunables& tunables,
                                   cudaStream_t stream) {
  // One block per tile: the grid checked for the policy (or the smallest default tile) before
  // anything else asks the device, allocates or packs.
  using Smallest =
      std::conditional_t<std::is_void_v<Policy>,
                         std::conditional_t<std::is_same_v<T, float>, GemmPolicySmall, GemmPolicySmallF64>, Policy>;
  constexpr std::int64_t side = Smallest::tile_m < Smallest::tile_n ? Smallest::tile_m : Smallest::tile_n;
  if (!grid_fits(p.c.rows, p.c.cols, side, side)) return cudaErrorInvalidValue;
  // So is the mainloop's int count of K steps, for the shortest K step the plan may take
  // (launch_product checks its own policy's again, after any packing has run).
  if (ceil_div<std::int64_t>(p.a.cols, shortest_k_step<Policy, T>()) > INT_MAX) return cudaErrorInvalidValue;
  const LauncherEpilogue<T, Epilogue> epi{user_epi, p.transposed};
  DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(device_limits(limits));
  const int sms = tunables.sms > 0 ? tunables.sms : limits.sms;  // the SMs the plan fills
  GemmTunables tuned = tunables;
  tuned.pack.bytes = pack_budget(tunables.pack, limits.memory);
  if constexpr (!std::is_void_v<Policy>) {
    // A configuration the device cannot hold is refused before any workspace or packing.
    if (Policy::tiled::smem_bytes > static_cast<std::size_t>(limits.smem_per_block_optin)) return cudaErrorInvalidValue;
    return run_packed<Policy>(p, epi, sms, tuned, stream);
  } else {
    const std::int64_t k = p.a.cols;
    const GemmSplitLimits split = tuned.split;
    const GemmChoice choice = choose_default<T>(p.c.rows, p.c.cols, k, limits, split);
    const EdgePlan edge = edge_plan(facts_of_choice(choice), p.c.rows, p.c.cols, k, tuned.edge);
    if (edge.rows == 0 && edge.cols == 0) return run_choice(choice, p, epi, sms, tuned, stream);
    // The edge launches after the whole tiles' product: its grids are checked before that.
    if (!edges_fit(p.c.rows, p.c.cols, edge)) return cudaErrorInvalidValue;
    // The whole tile rows and columns by the policy their own shape takes, then the edge.
    GemmProblem<T> q = p;
    q.c.rows -= edge.rows;
    q.c.cols -= edge.cols;
    q.a.rows = q.c.rows;
    q.b.cols = q.c.cols;
    // The edge's thin products are launched right after the first product's GEMM kernel, beside
    // it (LaunchAfter): the edge costs the block slots its blocks take, not two more kernels in
    // a row.
    struct Edges {
      const GemmProblem<T>* p;
      const LauncherEpilogue<T, Epilogue>* epi;
      EdgePlan edge;
      bool ran;
    } edges{&p, &epi, edge, false};
    const LaunchAfter after{[](void* context, cudaStream_t s) {
                              auto& e = *static_cast<Edges*>(context);
                              e.ran = true;
                              return run_edges(*e.p, *e.epi, e.edge, true, s);
                            },
                            &edges};
    GemmSplitLimits beside = split;  // (launch_product deals nothing out beside the edge)
    beside.balanced = false;
    const GemmChoice inner = choose_default<T>(q.c.rows, q.c.cols, k, limits, beside);
    TILECRAFT_RETURN_IF_ERROR(run_choice(inner, q, epi, sms, tuned, stream, after));
    // edge_plan leaves whole tiles before the edge, so a successful run_choice has launched a
    // product and the edge with it. Should a path ever skip it, the edge runs after it instead,
    // as ordinary launches.
    if (edges.ran) return cudaSuccess;
    return run_edges(p, epi, edge, false, stream);
  }
}

//! Whether Policy is a policy for elements other than T.
template <class Policy, class T>
constexpr bool policy_of_other_type() {
  if constexpr (GemmPolicyMembers<Policy>) {
    return !std::is_same_v<typename Policy::element_type, T>;
  } else {
    return false;
  }
}

//! Policy as the dispatch takes it: void, or its checked GemmPolicyOf.
template <class Policy>
struct DispatchPolicy {
  using type = void;
};
template <GemmPolicyMembers Policy>
struct DispatchPolicy<Policy> {
  using type = gemm_policy_t<Policy>;
};

//! The policy rules gemm() and gemm_epilogue() state.
template <class Policy, class T>
constexpr bool check_policy() {
  static_assert(std::is_void_v<Policy> || GemmPolicyMembers<Policy>,
                "gemm: Policy must be void (chosen by shape) or a GEMM policy (GemmPolicyOf, GemmPolicy, or a struct "
                "of GemmPolicyDefaults' named members)");
  static_assert(!policy_of_other_type<Policy, T>(),
                "gemm: the Policy's element type (GemmPolicy's last parameter, float by default) must be the "
                "matrices' element type");
  return (std::is_void_v<Policy> || GemmPolicyMembers<Policy>)&&!policy_of_other_type<Policy, T>();
}

//! gemm_epilogue() for either element type, with explicit tunables.
template <class Policy, class T, class Epilogue>
[[nodiscard]] cudaError_t gemm_epilogue_run(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                                            std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb,
                                            T* c, std::int64_t ldc, const Epilogue& epi, const GemmTunables& tunables,
                                            cudaStream_t stream) {
  if constexpr (check_policy<Policy, T>()) {
    TILECRAFT_NVTX_RANGE("tilecraft::gemm_epilogue");
    // (Returned as it is: an error made up here is not the runtime's last error, which
    // stays in its slot for its owner even where it is the same code.)
    if (const cudaError_t invalid = check_gemm_args(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
        invalid != cudaSuccess) {
      return invalid;
    }
    if (m == 0 || n == 0) return cudaSuccess;
    return dispatch<typename DispatchPolicy<Policy>::type>(
        row_major_problem(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc), epi, tunables, stream);
  } else {
    return cudaErrorInvalidValue;  // (check_policy's static_assert has said why)
  }
}

//! gemm() for either element type, with explicit tunables.
template <class Policy, class T>
[[nodiscard]] cudaError_t gemm_run(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                   T alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c,
                                   std::int64_t ldc, const GemmTunables& tunables, cudaStream_t stream) {
  if constexpr (check_policy<Policy, T>()) {
    TILECRAFT_NVTX_RANGE("tilecraft::gemm");
    // (Returned as it is: an error made up here is not the runtime's last error, which
    // stays in its slot for its owner even where it is the same code.)
    if (const cudaError_t invalid = check_gemm_args(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
        invalid != cudaSuccess) {
      return invalid;
    }
    if (blas_quick_return(m, n, k, alpha, beta)) return cudaSuccess;
    const bool scale_only = blas_scale_only(k, alpha);  // C = beta C: A and B are not read
    return dispatch<typename DispatchPolicy<Policy>::type>(
        row_major_problem(order, op_a, op_b, m, n, scale_only ? 0 : k, a, lda, b, ldb, c, ldc),
        BasicLinearCombination<T>{scale_only ? T(0) : alpha, beta}, tunables, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

}  // namespace tilecraft::detail

#else  // a host compiler

namespace tilecraft::detail {
//! Under a host compiler (a .cpp file) gemm()'s launcher is declared only: its definition and
//! kernels come from a CUDA unit of the program that instantiates it for the default policy,
//! `TILECRAFT_GEMM_INSTANCE(, float)` (below), and the linker joins the two (the same function:
//! the declaration is the nvcc definition's).
template <class Policy, class T>
[[nodiscard]] cudaError_t gemm_run(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                   T alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c,
                                   std::int64_t ldc, const GemmTunables& tunables, cudaStream_t stream);
}  // namespace tilecraft::detail

#endif  // __CUDACC__

//! Declares (Prefix `extern`) or defines (Prefix empty) the instantiation of tilecraft::gemm's
//! launcher for T operands (float or double) with the default policy (chosen by shape) and its
//! kernels (every default policy's for each operand order, the thin and edge kernels, split-K's
//! reduction, the packing copies: half a minute or more of compilation per architecture), as
//! TILECRAFT_GEMM_16BIT_INSTANCE does for 16-bit operands. gemm<Policy>() with a Policy of the
//! user's stays a template of the caller's unit.
#define TILECRAFT_GEMM_INSTANCE(Prefix, T)                                                                   \
  Prefix template cudaError_t tilecraft::detail::gemm_run<void, T>(                                          \
      tilecraft::Order, tilecraft::Op, tilecraft::Op, std::int64_t, std::int64_t, std::int64_t, T, const T*, \
      std::int64_t, const T*, std::int64_t, T, T*, std::int64_t, const tilecraft::detail::GemmTunables&, cudaStream_t)
