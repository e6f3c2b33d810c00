// The arch/ layer inside your own kernel: the raw PTX wrappers the library's primitives are built
// from, each where it pays, and each result checked on the host.
//   1. cp.async (arch::cp_async_cg at a shared-window address, arch::smem_address): a block
//      stages its tile in shared memory with no register stage, prefetches the tile it takes
//      next into L2 (arch::prefetch_l2_bulk), and writes with evict-first stores
//      (arch::st_global_stream); below sm_80 the same kernel stages through registers.
//   2. Named atomics: a 16-bin histogram of words read with streaming loads
//      (arch::ld_global_stream), counted with arch::red_shared_add and merged with
//      arch::red_global_add (32- and 64-bit).
//   3. A cooperative grid: per-block sums, arch::grid_sync, then one block publishes the total
//      behind a flag (arch::store_release) that the others wait for (arch::load_acquire,
//      arch::named_barrier_sync for the block's readers).
//   4. Programmatic dependent launch (sm_90): the second kernel starts while the first runs and
//      waits for its memory with arch::wait_for_dependencies; the first lets it launch with
//      arch::launch_dependents.
#include <cuda_runtime.h>
#include <nv/target>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <tilecraft/arch/cp_async.cuh>
#include <tilecraft/arch/global_access.cuh>
#include <tilecraft/arch/grid_sync.cuh>
#include <tilecraft/arch/griddepcontrol.cuh>
#include <tilecraft/arch/prefetch.cuh>
#include <tilecraft/arch/shared_atomic.cuh>
#include <tilecraft/arch/smem_address.cuh>
#include <tilecraft/arch/sync_flag.cuh>

#include "example_util.cuh"

namespace arch = tilecraft::arch;

constexpr int threads = 256;
constexpr int tile_vectors = threads;  // one 16-byte vector a thread: 4 KiB a tile

// 1. Each block walks tiles blockIdx.x, + gridDim.x, ...: stages tile t with cp.async, asks L2
// for the tile it takes next, and writes 2 x its right neighbour's vector (so a thread reads
// bytes another thread's copy brought: the wait and the barrier make them visible).
__global__ void __launch_bounds__(threads) stage_rotate(const float4* in, float4* out, int tiles) {
  __shared__ alignas(16) float4 stage[tile_vectors];
  const int t = static_cast<int>(threadIdx.x);
  for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += static_cast<int>(gridDim.x)) {
    const float4* src = in + static_cast<std::int64_t>(tile) * tile_vectors;
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                      (arch::cp_async_cg<16>(arch::smem_address(&stage[t]), src + t);  // no register stage
                       arch::cp_async_commit(); arch::cp_async_wait<0>();),
                      (stage[t] = src[t];))  // (sm_75: through a register)
    const int next = tile + static_cast<int>(gridDim.x);
    if (next < tiles) {  // a hint for a range inside the allocation; nothing waits for it
      arch::prefetch_l2_bulk<threads, tile_vectors * sizeof(float4)>(
          in + static_cast<std::int64_t>(next) * tile_vectors, t);
    }
    __syncthreads();  // every thread's copy landed (each waited for its own)
    float4 v = stage[(t + 1) % tile_vectors];
    v.x *= 2.0f;
    v.y *= 2.0f;
    v.z *= 2.0f;
    v.w *= 2.0f;
    uint4 bits;
    std::memcpy(&bits, &v, sizeof bits);
    arch::st_global_stream(reinterpret_cast<uint4*>(out + static_cast<std::int64_t>(tile) * tile_vectors + t), bits);
    __syncthreads();  // the stage is refilled by the next tile's copies
  }
}

// 2. The low 4 bits of every word name its bin. Each block counts in shared memory with
// red.shared (no old value wanted, the address space named), then adds its counts to the global
// histogram and its word count to a 64-bit total with red.global.
__global__ void __launch_bounds__(threads)
    histogram16(const uint4* words, std::int64_t vectors, unsigned* bins, unsigned long long* total) {
  __shared__ unsigned counts[16];
  if (threadIdx.x < 16) counts[threadIdx.x] = 0;
  __syncthreads();
  const std::uint32_t base = arch::smem_address(counts);
  unsigned mine = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(threads) + threadIdx.x; i < vectors;
       i += static_cast<std::int64_t>(gridDim.x) * threads) {
    const uint4 w = arch::ld_global_stream(words + i);  // read once: no reason to keep it in L1
    arch::red_shared_add(base + 4 * (w.x & 15u), 1u);
    arch::red_shared_add(base + 4 * (w.y & 15u), 1u);
    arch::red_shared_add(base + 4 * (w.z & 15u), 1u);
    arch::red_shared_add(base + 4 * (w.w & 15u), 1u);
    mine += 4;
  }
  __syncthreads();
  if (threadIdx.x < 16 && counts[threadIdx.x] != 0) arch::red_global_add(bins + threadIdx.x, counts[threadIdx.x]);
  if (mine != 0) arch::red_global_add(total, static_cast<unsigned long long>(mine));
}

// 3. Launched cooperatively (every block resident): block sums, a grid barrier, then block 0
// adds them up and raises a flag; every other block waits for the flag, and every thread writes
// total - its block's sum. `flag` starts at 0.
__global__ void __launch_bounds__(threads)
    total_behind_flag(const float* x, int per_block, float* partial, float* total, unsigned* flag, float* others) {
  __shared__ float sums[threads];
  const float* mine = x + static_cast<std::int64_t>(blockIdx.x) * per_block;
  float s = 0.0f;
  for (int i = static_cast<int>(threadIdx.x); i < per_block; i += threads) s += mine[i];
  sums[threadIdx.x] = s;
  __syncthreads();
  for (int half = threads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
  arch::grid_sync();  // every block's partial is written and visible
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      float t = 0.0f;
      for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];  // in block order: the same bits every run
      *total = t;
      arch::store_release(flag, 1u);  // the total, then the flag
    }
    __syncthreads();  // the block's other threads read what thread 0 wrote
  } else {
    if (threadIdx.x == 0) {
      while (arch::load_acquire(flag) == 0u) {
      }
    }
    // The block's readers wait behind thread 0's acquire (a __syncthreads() would do here; a
    // named barrier lets a part of a block wait, as the warps of a warp-specialized kernel do).
    arch::named_barrier_sync(1, threads);
  }
  others[static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x] = *total - partial[blockIdx.x];
}

// 4. The first kernel lets its dependent launch as soon as every block has started, and writes;
// the dependent does what needs none of that memory first, then waits for it.
__global__ void produce(float* a, int n) {
  arch::launch_dependents();
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) a[i] = static_cast<float>(i) * 0.5f;
}
__global__ void consume(const float* a, const float* b, float* c, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const float own = i < n ? b[i] : 0.0f;  // not written by produce: read before the wait
  arch::wait_for_dependencies();          // produce has completed and its writes are visible
  if (i < n) c[i] = a[i] + own;
}

int main() {
  if (!example::have_gpu("raw_ptx")) return 0;
  int sms = 0;
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  example::UniformFloats uniform(-1.0f, 1.0f, 20261130);

  {  // 1. cp.async staging, an L2 prefetch, evict-first stores
    const int tiles = 4 * sms + 3;
    const std::size_t vectors = static_cast<std::size_t>(tiles) * tile_vectors;
    std::vector<float4> h(vectors);
    for (auto& v : h) v = make_float4(uniform(), uniform(), uniform(), uniform());
    float4* in = example::device_copy(h);
    float4* out = nullptr;
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, vectors * sizeof(float4)));
    TILECRAFT_THROW_IF_ERROR(cudaMemset(out, 0xff, vectors * sizeof(float4)));  // NaNs where nothing was written
    stage_rotate<<<sms, threads>>>(in, out, tiles);
    TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
    std::vector<float4> got(vectors);
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), out, vectors * sizeof(float4), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (std::size_t i = 0; i < vectors && ok; ++i) {
      const std::size_t tile = i / tile_vectors, t = i % tile_vectors;
      const float4 w = h[tile * tile_vectors + (t + 1) % tile_vectors];
      ok = got[i].x == 2.0f * w.x && got[i].y == 2.0f * w.y && got[i].z == 2.0f * w.z && got[i].w == 2.0f * w.w;
    }
    std::printf("  %-58s %s\n", "1. cp.async staging, bulk L2 prefetch, evict-first stores", example::verdict(ok));
    TILECRAFT_THROW_IF_ERROR(cudaFree(in));
    TILECRAFT_THROW_IF_ERROR(cudaFree(out));
  }

  {  // 2. a histogram by red.shared and red.global
    const std::int64_t vectors = 1000003;
    std::vector<uint4> h(static_cast<std::size_t>(vectors));
    std::uint64_t state = 7;
    auto next = [&] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<unsigned>(state >> 33);
    };
    for (auto& w : h) w = make_uint4(next(), next(), next(), next());
    uint4* words = example::device_copy(h);
    unsigned* bins = nullptr;
    unsigned long long* total = nullptr;
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&bins, 16 * sizeof(unsigned)));
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&total, sizeof(unsigned long long)));
    TILECRAFT_THROW_IF_ERROR(cudaMemset(bins, 0, 16 * sizeof(unsigned)));
    TILECRAFT_THROW_IF_ERROR(cudaMemset(total, 0, sizeof(unsigned long long)));
    histogram16<<<2 * sms, threads>>>(words, vectors, bins, total);
    TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
    std::vector<unsigned> got(16);
    unsigned long long got_total = 0;
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), bins, 16 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&got_total, total, sizeof got_total, cudaMemcpyDeviceToHost));
    std::vector<unsigned> want(16, 0);
    for (const uint4& w : h) {
      ++want[w.x & 15u];
      ++want[w.y & 15u];
      ++want[w.z & 15u];
      ++want[w.w & 15u];
    }
    const bool ok = got == want && got_total == 4ull * static_cast<unsigned long long>(vectors);
    std::printf("  %-58s %s\n", "2. 16 bins by red.shared / red.global, streaming loads", example::verdict(ok));
    TILECRAFT_THROW_IF_ERROR(cudaFree(words));
    TILECRAFT_THROW_IF_ERROR(cudaFree(bins));
    TILECRAFT_THROW_IF_ERROR(cudaFree(total));
  }

  {  // 3. a cooperative grid: grid_sync, then a flag with release / acquire
    int cooperative = 0, per_sm = 0;
    TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
    TILECRAFT_THROW_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, total_behind_flag, threads, 0));
    if (cooperative == 0 || per_sm == 0) {
      std::printf("  3. (no cooperative launch on this device: skipped)\n");
    } else {
      int blocks = sms;  // every block must be resident: one an SM is (per_sm >= 1)
      int per_block = 3001;
      std::vector<float> h(static_cast<std::size_t>(blocks) * per_block);
      for (auto& v : h) v = uniform();
      float* x = example::device_copy(h);
      float *partial = nullptr, *total = nullptr, *others = nullptr;
      unsigned* flag = nullptr;
      TILECRAFT_THROW_IF_ERROR(cudaMalloc(&partial, blocks * sizeof(float)));
      TILECRAFT_THROW_IF_ERROR(cudaMalloc(&total, sizeof(float)));
      TILECRAFT_THROW_IF_ERROR(cudaMalloc(&others, static_cast<std::size_t>(blocks) * threads * sizeof(float)));
      TILECRAFT_THROW_IF_ERROR(cudaMalloc(&flag, sizeof(unsigned)));
      TILECRAFT_THROW_IF_ERROR(cudaMemset(flag, 0, sizeof(unsigned)));
      void* args[] = {&x, &per_block, &partial, &total, &flag, &others};
      const cudaError_t launched = cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(total_behind_flag),
                                                               dim3(blocks), dim3(threads), args, 0, nullptr);
      if (launched == cudaErrorCooperativeLaunchTooLarge) {
        // Fewer SMs usable than the device reports (MPS, green contexts): no grid of one block an
        // SM is resident at once, so none is launched.
        (void)cudaGetLastError();
        std::printf("  3. (a cooperative grid of %d blocks is too large here: skipped)\n", blocks);
      }
      TILECRAFT_THROW_IF_ERROR(launched == cudaErrorCooperativeLaunchTooLarge ? cudaSuccess : launched);
      if (launched != cudaErrorCooperativeLaunchTooLarge) {
        std::vector<float> got_partial(blocks), got_others(static_cast<std::size_t>(blocks) * threads);
        float got_total = 0.0f;
        TILECRAFT_THROW_IF_ERROR(
            cudaMemcpy(got_partial.data(), partial, blocks * sizeof(float), cudaMemcpyDeviceToHost));
        TILECRAFT_THROW_IF_ERROR(
            cudaMemcpy(got_others.data(), others, got_others.size() * sizeof(float), cudaMemcpyDeviceToHost));
        TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&got_total, total, sizeof(float), cudaMemcpyDeviceToHost));
        // The block sums against a double host sum (their float association is the kernel's own);
        // the total and the others exactly as the kernel defines them from the partials.
        bool ok = true;
        float want_total = 0.0f;
        for (int b = 0; b < blocks; ++b) {
          double s = 0.0;
          for (int i = 0; i < per_block; ++i) s += h[static_cast<std::size_t>(b) * per_block + i];
          ok = ok && std::fabs(got_partial[b] - s) <= 1e-4 * (1.0 + std::fabs(s));
          want_total += got_partial[b];
        }
        ok = ok && got_total == want_total;
        for (std::size_t i = 0; i < got_others.size(); ++i)
          ok = ok && got_others[i] == want_total - got_partial[i / threads];
        std::printf("  %-58s %s\n", "3. grid_sync, then a total behind a release / acquire flag", example::verdict(ok));
      }
      TILECRAFT_THROW_IF_ERROR(cudaFree(x));
      TILECRAFT_THROW_IF_ERROR(cudaFree(partial));
      TILECRAFT_THROW_IF_ERROR(cudaFree(total));
      TILECRAFT_THROW_IF_ERROR(cudaFree(others));
      TILECRAFT_THROW_IF_ERROR(cudaFree(flag));
    }
  }

  {  // 4. programmatic dependent launch
    const int n = 1 << 20;
    std::vector<float> hb(n);
    for (auto& v : hb) v = uniform();
    float* b = example::device_copy(hb);
    float *a = nullptr, *c = nullptr;
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&a, n * sizeof(float)));
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&c, n * sizeof(float)));
    TILECRAFT_THROW_IF_ERROR(cudaMemset(a, 0xff, n * sizeof(float)));
    const dim3 grid((n + 255) / 256), block(256);
    produce<<<grid, block>>>(a, n);
    TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
    // The attribute only where the kernel's code was built for sm_90 or later: there
    // wait_for_dependencies waits; in code for an older target (PTX JIT-compiled on a newer GPU
    // too) it is compiled out, and the dependent must not start early.
    cudaFuncAttributes attributes{};
    TILECRAFT_THROW_IF_ERROR(cudaFuncGetAttributes(&attributes, consume));
    cudaLaunchAttribute early{};
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    const bool programmatic = attributes.ptxVersion >= 90 && attributes.binaryVersion >= 90;
    config.attrs = programmatic ? &early : nullptr;
    config.numAttrs = programmatic ? 1 : 0;
    const float* a_in = a;
    TILECRAFT_THROW_IF_ERROR(cudaLaunchKernelEx(&config, consume, a_in, static_cast<const float*>(b), c, n));
    std::vector<float> got(n);
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) ok = got[i] == static_cast<float>(i) * 0.5f + hb[i];
    std::printf("  %-58s %s\n",
                programmatic ? "4. programmatic dependent launch (sm_90)" : "4. the same kernels in stream order",
                example::verdict(ok));
    TILECRAFT_THROW_IF_ERROR(cudaFree(a));
    TILECRAFT_THROW_IF_ERROR(cudaFree(b));
    TILECRAFT_THROW_IF_ERROR(cudaFree(c));
  }
  return example::exit_status();
}
