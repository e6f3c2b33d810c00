// Every device launcher captured into a CUDA graph (cudaStreamCaptureModeGlobal, the strictest
// mode: a call that is not capture-safe, such as one that synchronizes, fails the capture), then
// replayed twice. The launcher and cudaStreamEndCapture must succeed, the capture must run
// nothing (the output keeps its poison until the graph runs), and each replay must give the
// same bits as a direct call on the same data (every launcher is deterministic). The first test
// case captures every launcher's first call in the process (what it asks of the device and
// keeps in the device cache is asked inside the capture, where a synchronizing or allocating
// call would fail it), the direct call after the replays; the others run the direct call first,
// as a user warms up before capturing. The direct calls' integer and copy results are checked
// against the host here, the float ones against CUB, cuBLAS and host folds in the other device
// tests. Then each call runs once more, directly, while this thread holds a global-mode capture
// open on another stream: that capture must end valid. Covered: the scan's two passes, its one
// wave (a cooperative launch) and its single pass (reset kernel and programmatic dependent
// launch), the convenience scan and reduce (stream-ordered allocation: graph memory nodes),
// select_if, the histograms' cooperative launch, transpose, and the GEMM: SIMT whole tiles,
// split K with pool workspace, TF32 with operand copies into workspace (rows 16 bytes off 32),
// TF32x3's stream-K (flags in workspace), BF16 operands. Not covered:
// partition and stencil_1d (one launch each, as select_if's and transpose's), gemm_epilogue.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <cuda_bf16.h>

#include <tilecraft/device/gemm.cuh>
#include <tilecraft/device/histogram.cuh>
#include <tilecraft/device/reduce.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/device/transpose.cuh>
#include <tilecraft/util/functional.cuh>

#include "test_util.cuh"

// The GEMM launchers' kernels compile in tests/support/gemm_instance_*.cu (tilecraft_gemm_instances).
TILECRAFT_GEMM_INSTANCE(extern, float);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32x3);
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __nv_bfloat16);

using tilecraft::test::DeviceBuffer;

namespace {

// Runs call() (a host call, which may launch on streams of its own) while this thread holds a
// capture in global mode open on a stream of its own, then ends that capture: the capture must
// end valid (and empty) and the call succeed. A refused "potentially unsafe" runtime call inside
// call() would have invalidated the capture.
template <class F>
void check_beside_global_capture(F&& call) {
  tilecraft::test::Stream other(cudaStreamNonBlocking);
  REQUIRE(cudaStreamBeginCapture(other.get(), cudaStreamCaptureModeGlobal) == cudaSuccess);
  const cudaError_t beside = call();
  cudaGraph_t empty = nullptr;
  const cudaError_t closed = cudaStreamEndCapture(other.get(), &empty);
  CHECK(beside == cudaSuccess);
  CHECK(closed == cudaSuccess);
  CHECK(empty != nullptr);
  if (empty != nullptr) (void)cudaGraphDestroy(empty);
  if (beside != cudaSuccess || closed != cudaSuccess) (void)cudaGetLastError();  // (reported above)
}

struct Below {
  int threshold;
  __host__ __device__ bool operator()(int v) const { return v < threshold; }
};

// launch(stream) enqueues the work; out is the buffer it writes (poisoned before each run);
// verify(direct) checks the direct call's output against a host reference where the case has
// an exact one (the float cases' references are the other device tests').
struct NoHostReference {
  template <class V>
  void operator()(const V&) const {}
};
// first_call_captured: the capture comes first, the direct call after the replays (each replay
// then matches the first, and the direct call both).
template <class T, class Launch, class Verify = NoHostReference>
void check_captured(bool first_call_captured, const char* what, DeviceBuffer<T>& out, Launch launch,
                    Verify verify = {}) {
  CAPTURE(what);
  CAPTURE(first_call_captured);
  tilecraft::test::Stream stream;
  auto direct_call = [&] {
    out.poison();
    REQUIRE(launch(stream.get()) == cudaSuccess);
    stream.synchronize();
    CHECK(out.unpoisoned() > 0);  // (the direct call wrote its output)
    std::vector<T> got = out.download();
    verify(got);
    return got;
  };
  std::vector<T> expected;
  if (!first_call_captured) expected = direct_call();

  out.poison();
  REQUIRE(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal) == cudaSuccess);
  const cudaError_t launched = launch(stream.get());
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream.get(), &graph);
  CHECK(launched == cudaSuccess);
  CHECK(ended == cudaSuccess);
  CHECK(graph != nullptr);
  if (launched != cudaSuccess || ended != cudaSuccess || graph == nullptr) {
    (void)cudaGetLastError();  // (a failed capture's error: reported above, not the next case's)
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    return;
  }
  CHECK(out.unpoisoned() == 0);  // capturing ran nothing
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    CAPTURE(replay);
    out.poison();
    REQUIRE(cudaGraphLaunch(exec, stream.get()) == cudaSuccess);
    stream.synchronize();
    const std::vector<T> replayed = out.download();
    if (expected.empty()) {
      CHECK(out.unpoisoned() > 0);
      expected = replayed;
    }
    CHECK(std::memcmp(replayed.data(), expected.data(), expected.size() * sizeof(T)) == 0);
  }
  (void)cudaGraphExecDestroy(exec);
  (void)cudaGraphDestroy(graph);
  if (first_call_captured) {
    const std::vector<T> direct = direct_call();
    CHECK(std::memcmp(direct.data(), expected.data(), expected.size() * sizeof(T)) == 0);
  }
  // Beside a capture: the call runs directly on its stream while this thread holds a capture in
  // global mode open on another. What the launcher asks of the runtime besides its stream's
  // work (stream-ordered allocations, a pool's attributes) must not be refused there: a refused
  // "potentially unsafe" call invalidates that capture. It must end valid (and empty), and the
  // call give the same bits.
  {
    out.poison();
    check_beside_global_capture([&] { return launch(stream.get()); });
    stream.synchronize();
    const std::vector<T> got = out.download();
    CHECK(std::memcmp(got.data(), expected.data(), expected.size() * sizeof(T)) == 0);
  }
  tilecraft::test::sync_and_check();
}

// Scans, select_if, reduce, histograms and transpose. (None of this file's cases runs under
// racecheck: a replayed graph runs the kernels a direct call runs, with the same shapes, and a
// block's shared-memory accesses do not depend on how its launch was issued; the other device
// tests run every one of these kernels under racecheck. Here they took 63 s of it, in the GPU
// check of b8ba2d0.)
void capture_launchers(bool first_call_captured) {
  const bool small = tilecraft::test::sanitizer_sized();
  // Floats in [-1, 1): a float scan's bits depend on its association, which a replay must keep.
  const std::int64_t mid = std::int64_t{1} << 18;   // two passes
  const std::int64_t wave = std::int64_t{1} << 20;  // one wave (a cooperative launch)
  // (Split tiles, with dynamic shared memory opted in: past the shared tiles' wave on an H200.)
  const std::int64_t split = (std::int64_t{1} << 23) + 5;  // one wave
  // (Past one wave on an H200, split tiles too: 427 of 24576 against 396; sanitizer-sized too.)
  const std::int64_t large = (std::int64_t{5} << 21) + 5;  // one pass
  for (std::int64_t n : {mid, wave, split, large}) {
    CAPTURE(n);
    const auto host = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n), -1.0, 1.0, 11 + n);
    DeviceBuffer<float> in(host), out(host.size());
    std::size_t bytes = 0;
    REQUIRE(tilecraft::inclusive_scan(nullptr, bytes, in.get(), out.get(), n, tilecraft::Sum{}) == cudaSuccess);
    DeviceBuffer<unsigned char> temp(bytes);
    check_captured(first_call_captured, "inclusive_scan", out, [&](cudaStream_t s) {
      std::size_t b = bytes;
      return tilecraft::inclusive_scan(temp.get(), b, in.get(), out.get(), n, tilecraft::Sum{}, s);
    });
    check_captured(
        first_call_captured, "inclusive_scan, its temp storage allocated on the stream", out,
        [&](cudaStream_t s) { return tilecraft::inclusive_scan(in.get(), out.get(), n, tilecraft::Sum{}, s); });
  }
  {
    const std::int64_t n = (std::int64_t{1} << 20) + 3;
    const auto host = tilecraft::test::random_vector<std::int64_t>(static_cast<std::size_t>(n), -1000, 1000, 12);
    DeviceBuffer<std::int64_t> in(host), out(host.size());
    check_captured(
        first_call_captured, "exclusive_scan of int64", out,
        [&](cudaStream_t s) {
          return tilecraft::exclusive_scan(in.get(), out.get(), n, tilecraft::Sum{}, std::int64_t{5}, s);
        },
        [&](const std::vector<std::int64_t>& got) {
          std::int64_t sum = 5;
          std::size_t bad = 0;
          for (std::size_t i = 0; i < host.size(); ++i) {
            bad += got[i] != sum;
            sum += host[i];
          }
          CHECK(bad == 0);
        });
  }
  {
    const std::int64_t n = (std::int64_t{1} << 20) + 3;
    const auto host = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), 0, 1000, 13);
    // The kept items, then the count in two ints' bytes past them, 8-byte aligned.
    const std::size_t count_at = (host.size() + 1) & ~std::size_t{1};
    DeviceBuffer<int> in(host), out(count_at + 2);
    auto* count = reinterpret_cast<std::int64_t*>(out.get() + count_at);
    std::size_t bytes = 0;
    REQUIRE(tilecraft::select_if(nullptr, bytes, in.get(), out.get(), count, n, Below{500}) == cudaSuccess);
    DeviceBuffer<unsigned char> temp(bytes);
    check_captured(
        first_call_captured, "select_if", out,
        [&](cudaStream_t s) {
          std::size_t b = bytes;
          return tilecraft::select_if(temp.get(), b, in.get(), out.get(), count, n, Below{500}, s);
        },
        [&](const std::vector<int>& got) {
          std::vector<int> kept;
          for (int v : host) {
            if (Below{500}(v)) kept.push_back(v);
          }
          std::int64_t got_count = 0;
          std::memcpy(&got_count, got.data() + count_at, sizeof(got_count));
          CHECK(got_count == static_cast<std::int64_t>(kept.size()));
          CHECK(std::memcmp(got.data(), kept.data(), kept.size() * sizeof(int)) == 0);
        });
  }
  {
    const std::int64_t n = small ? std::int64_t{1} << 20 : std::int64_t{1} << 24;
    const auto host = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n), -1.0, 1.0, 14);
    DeviceBuffer<float> in(host), out(1);
    check_captured(first_call_captured, "reduce", out, [&](cudaStream_t s) {
      return tilecraft::reduce(in.get(), out.get(), n, tilecraft::Sum{}, 0.0f, s);
    });
  }
  {
    const std::int64_t n = (std::int64_t{1} << (small ? 20 : 22)) + 7;
    const auto bytes8 = tilecraft::test::random_vector<std::uint8_t>(static_cast<std::size_t>(n), 0, 255, 15);
    DeviceBuffer<std::uint8_t> in(bytes8);
    DeviceBuffer<unsigned> hist(256);
    std::size_t bytes = 0;
    REQUIRE(tilecraft::histogram_even(nullptr, bytes, in.get(), hist.get(), 256, 0, 256, n) == cudaSuccess);
    DeviceBuffer<unsigned char> temp(bytes);
    check_captured(
        first_call_captured, "histogram_even of bytes", hist,
        [&](cudaStream_t s) {
          std::size_t b = bytes;
          return tilecraft::histogram_even(temp.get(), b, in.get(), hist.get(), 256, 0, 256, n, s);
        },
        [&](const std::vector<unsigned>& got) {
          std::vector<unsigned> want(256, 0u);
          for (std::uint8_t v : bytes8) ++want[v];
          CHECK(got == want);
        });
    const auto floats = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n), -1.0, 1.0, 16);
    DeviceBuffer<float> fin(floats);
    std::vector<float> levels(65);
    for (int i = 0; i <= 64; ++i) levels[static_cast<std::size_t>(i)] = -1.0f + static_cast<float>(i) / 32.0f;
    DeviceBuffer<float> d_levels(levels);
    DeviceBuffer<unsigned> fhist(64);
    std::size_t fbytes = 0;
    REQUIRE(tilecraft::histogram_range(nullptr, fbytes, fin.get(), fhist.get(), 64, d_levels.get(), n) == cudaSuccess);
    DeviceBuffer<unsigned char> ftemp(fbytes);
    check_captured(first_call_captured, "histogram_range of floats", fhist, [&](cudaStream_t s) {
      std::size_t b = fbytes;
      return tilecraft::histogram_range(ftemp.get(), b, fin.get(), fhist.get(), 64, d_levels.get(), n, s);
    });
  }
  {
    const std::int64_t rows = 1000, cols = 999;
    const auto host = tilecraft::test::random_vector<float>(static_cast<std::size_t>(rows * cols), -1.0, 1.0, 17);
    DeviceBuffer<float> in(host), out(host.size());
    check_captured(
        first_call_captured, "transpose", out,
        [&](cudaStream_t s) { return tilecraft::transpose(in.get(), cols, out.get(), rows, rows, cols, s); },
        [&](const std::vector<float>& got) {
          std::size_t bad = 0;
          for (std::int64_t r = 0; r < rows; ++r) {
            for (std::int64_t c = 0; c < cols; ++c) {
              bad += !tilecraft::test::same_bits(got[static_cast<std::size_t>(c * rows + r)],
                                                 host[static_cast<std::size_t>(r * cols + c)]);
            }
          }
          CHECK(bad == 0);
        });
  }
}

// The GEMM: whole tiles, split K, stream-K, operand copies, BF16.
void capture_gemms(bool first_call_captured) {
  enum class Math { fp32, tf32, tf32x3, bf16 };
  struct Shape {
    const char* what;
    std::int64_t m, n, k;
    Math math;
    tilecraft::Op op_b;
  };
  const Shape shapes[] = {
      {"FP32, whole tiles", 256, 256, 256, Math::fp32, tilecraft::Op::none},
      // 2^29 multiply-adds over 16 tiles: K split across blocks, partial sums in pool workspace.
      {"FP32, few tiles and a long K (split K, pool workspace)", 256, 256, 8192, Math::fp32, tilecraft::Op::none},
      {"TF32, row-major NT with rows 16 bytes off 32 (operands copied)", 1200, 1400, 1500, Math::tf32,
       tilecraft::Op::transpose},
      // 80 tiles of 128 x 128 on 132 SMs: wgmma with stream-K, its flags and partial sums in
      // workspace (fewer tiles than SMs, at least half as many).
      {"TF32x3, fewer tiles than SMs (stream-K)", 1280, 1024, 2048, Math::tf32x3, tilecraft::Op::none},
      {"BF16 operands, float C", 2048, 2048, 1024, Math::bf16, tilecraft::Op::none},
  };
  // (Sanitizer-sized: the tensor products' K 300, still 4 mod 8 floats.)
  const bool small = tilecraft::test::sanitizer_sized();
  for (const Shape& shape : shapes) {
    CAPTURE(shape.what);
    const std::int64_t m = shape.m, n = shape.n, k = small && shape.math != Math::fp32 ? 300 : shape.k;
    const std::int64_t ldb = shape.op_b == tilecraft::Op::transpose ? k : n;
    const auto a_host = tilecraft::test::random_vector<float>(static_cast<std::size_t>(m * k), -1.0, 1.0, 21 + k);
    const auto b_host = tilecraft::test::random_vector<float>(static_cast<std::size_t>(k * n), -1.0, 1.0, 22 + k);
    const auto c_host = tilecraft::test::random_vector<float>(static_cast<std::size_t>(m * n), -1.0, 1.0, 23 + k);
    DeviceBuffer<float> a(a_host), b(b_host), c0(c_host), c(c_host.size());
    std::vector<__nv_bfloat16> a16(a_host.size()), b16(b_host.size());
    for (std::size_t i = 0; i < a_host.size(); ++i) a16[i] = __float2bfloat16_rn(a_host[i]);
    for (std::size_t i = 0; i < b_host.size(); ++i) b16[i] = __float2bfloat16_rn(b_host[i]);
    DeviceBuffer<__nv_bfloat16> da16(a16), db16(b16);
    using tilecraft::GemmMath;
    using tilecraft::Op;
    using tilecraft::Order;
    // beta != 0: C is read and written, so each run starts from the same C (copied in first).
    auto run = [&](cudaStream_t s) {
      const cudaError_t copied =
          cudaMemcpyAsync(c.get(), c0.get(), c_host.size() * sizeof(float), cudaMemcpyDeviceToDevice, s);
      if (copied != cudaSuccess) return copied;
      switch (shape.math) {
        case Math::tf32:
          return tilecraft::gemm<GemmMath::tf32>(Order::row_major, Op::none, shape.op_b, m, n, k, 1.5f, a.get(), k,
                                                 b.get(), ldb, 0.5f, c.get(), n, s);
        case Math::tf32x3:
          return tilecraft::gemm<GemmMath::tf32x3>(Order::row_major, Op::none, shape.op_b, m, n, k, 1.5f, a.get(), k,
                                                   b.get(), ldb, 0.5f, c.get(), n, s);
        case Math::bf16:
          return tilecraft::gemm(Order::row_major, Op::none, shape.op_b, m, n, k, 1.5f, da16.get(), k, db16.get(), ldb,
                                 0.5f, c.get(), n, s);
        default:
          return tilecraft::gemm(Order::row_major, Op::none, shape.op_b, m, n, k, 1.5f, a.get(), k, b.get(), ldb, 0.5f,
                                 c.get(), n, s);
      }
    };
    check_captured(first_call_captured, shape.what, c, run);
  }
}

}  // namespace

// First in the file, so first to run (doctest orders the cases by file and line): no launcher
// has run in the process before it.
TEST_CASE("every launcher's first call in the process captured into a CUDA graph, then replayed and called directly") {
  if (tilecraft::test::racecheck_sized()) return;  // (see capture_launchers)
  capture_launchers(true);
  capture_gemms(true);
}

TEST_CASE("scans, select_if, reduce, histograms and transpose captured into a CUDA graph and replayed") {
  if (tilecraft::test::racecheck_sized()) return;
  capture_launchers(false);
}

TEST_CASE("gemm captured into a CUDA graph and replayed: whole tiles, split K, stream-K, operand copies, BF16") {
  if (tilecraft::test::racecheck_sized()) return;
  capture_gemms(false);
}

// release_workspace beside a capture in global mode on another stream: trimming the pool is not
// a stream operation, and must not invalidate that capture (the runtime refuses a pool's
// attributes and trim there, unless the calling thread's mode is relaxed).
TEST_CASE("release_workspace beside a global-mode capture leaves the capture valid") {
  namespace d = tilecraft::detail;
  tilecraft::test::Stream stream(cudaStreamNonBlocking);
  const auto use_pool = [&] {
    void* p = nullptr;
    REQUIRE(d::workspace_alloc(&p, std::size_t{1} << 20, stream.get()) == cudaSuccess);
    REQUIRE(d::workspace_free(p, stream.get()) == cudaSuccess);
    stream.synchronize();
  };
  use_pool();
  int device = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  REQUIRE(d::workspace_pool(device, pool, false, tilecraft::workspace_keep_bytes) == cudaSuccess);
  REQUIRE(pool != nullptr);  // (so that there is something to trim)
  check_beside_global_capture([] { return tilecraft::release_workspace(); });
  use_pool();  // (the pool still serves)
  tilecraft::test::sync_and_check();
}
