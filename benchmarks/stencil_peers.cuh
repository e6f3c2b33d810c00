// The peer of tilecraft::stencil_1d: the same tiling written with libcu++ alone
// (cuda::pipeline, cuda::memcpy_async; no tilecraft). 256 threads; a tile is 1024 float
// outputs, 4 per thread, plus a halo of R floats rounded up to 16 bytes on either side; each
// thread copies 16-byte chunks of the tile into shared memory, three tiles in flight in a
// block-scoped pipeline; persistent blocks stride over the tiles; each thread reads its window
// with 16-byte shared loads and writes its 4 outputs as one 16-byte store. Zero boundary:
//   out[i] = sum_{j=-R..R} w[j + R] * in[i + j],   in[k] = 0 outside [0, n).
// The simplifications a peer may take: n a multiple of 1024 (so only the first and the last
// tile reach past the array, by whole 16-byte chunks) and 16-byte-aligned pointers.
// compute-sanitizer memcheck, racecheck and initcheck are clean; synccheck (CUDA 13) reports
// "Missing wait" at producer_commit for every block-scoped cuda::pipeline, even one that copies
// nothing, so it is not run on this peer.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include <cuda/pipeline>

namespace peers {

constexpr int stencil_threads = 256;
constexpr int stencil_outputs_per_thread = 4;
constexpr int stencil_tile = stencil_threads * stencil_outputs_per_thread;  // outputs per tile
constexpr int stencil_stages = 3;                                           // tiles in flight per block

//! The 2R + 1 weights: w[j + R] multiplies in[i + j]. A kernel parameter (constant bank).
template <int R>
struct StencilTaps {
  float w[2 * R + 1];
};

template <int R>
__global__ void __launch_bounds__(stencil_threads)
    stencil_pipeline_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                            StencilTaps<R> taps) {
  static_assert(R >= 1 && R <= 16, "the halo chunks are copied by the first threads of warp 0: 1 <= R <= 16");
  constexpr int halo = (R + 3) / 4 * 4;           // floats on either side: R rounded up to 16 bytes
  constexpr int width = stencil_tile + 2 * halo;  // floats per stage
  constexpr int halo_chunks = halo / 4;           // 16-byte chunks on either side
  constexpr int window = 4 + 2 * halo;            // floats a thread reads for its 4 outputs
  // stage[s][k] holds in[tile * 1024 - halo + k]; rows are whole 16-byte chunks.
  __shared__ __align__(16) float stage[stencil_stages][width];
  // The barriers inside are initialised by make_pipeline, not by a constructor (libcu++'s own
  // examples silence this warning the same way).
#pragma nv_diagnostic push
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stencil_stages> state;
#pragma nv_diagnostic pop
  // Every thread produces and consumes every stage: the stage barriers count the whole block,
  // so a stage is read only after all 256 threads' copies into it have landed.
  auto pipe = cuda::make_pipeline(cooperative_groups::this_thread_block(), &state);

  const std::int64_t tiles = n / stencil_tile;
  // This block's tiles blockIdx.x, blockIdx.x + gridDim.x, ...: the same count for all its
  // threads, as the block-wide barriers require.
  const std::int64_t mine = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  auto first_of = [&](std::int64_t k) {  // in[] index of the k-th tile's first output
    return (blockIdx.x + k * gridDim.x) * static_cast<std::int64_t>(stencil_tile);
  };
  // One 16-byte chunk into the stage, or zeros where it lies outside [0, n) (n % 4 == 0, so a
  // chunk is wholly inside or wholly outside).
  auto chunk = [&](float* dst, std::int64_t src) {
    if (src >= 0 && src < n) {
      cuda::memcpy_async(dst, in + src, cuda::aligned_size_t<16>(16), pipe);
    } else {
      *reinterpret_cast<float4*>(dst) = make_float4(0.f, 0.f, 0.f, 0.f);
    }
  };

  std::int64_t fetched = 0;
  int fetch_stage = 0, read_stage = 0;
  for (std::int64_t k = 0; k < mine; ++k) {
    // Keep up to three tiles in flight: refill the stages freed since the last step.
    for (; fetched < mine && fetched < k + stencil_stages; ++fetched) {
      float* dst = stage[fetch_stage];
      const std::int64_t first = first_of(fetched);
      pipe.producer_acquire();
      // The body: thread t's chunk starts at first + 4t, so each warp reads 512 aligned bytes.
      chunk(dst + halo + 4 * threadIdx.x, first + 4 * threadIdx.x);
      // The halos: the first 2 * halo / 4 threads, one chunk each.
      if (threadIdx.x < halo_chunks) {
        chunk(dst + 4 * threadIdx.x, first - halo + 4 * threadIdx.x);
      } else if (threadIdx.x < 2 * halo_chunks) {
        const int c = threadIdx.x - halo_chunks;
        chunk(dst + halo + stencil_tile + 4 * c, first + stencil_tile + 4 * c);
      }
      pipe.producer_commit();
      fetch_stage = fetch_stage + 1 == stencil_stages ? 0 : fetch_stage + 1;
    }
    pipe.consumer_wait();
    // The thread's window, in[first + 4t - halo ...], in 16-byte shared loads: consecutive
    // threads read consecutive 16 bytes, conflict-free.
    float v[window];
    const float4* src = reinterpret_cast<const float4*>(stage[read_stage] + 4 * threadIdx.x);
#pragma unroll
    for (int q = 0; q < window / 4; ++q) {
      const float4 f = src[q];
      v[4 * q] = f.x;
      v[4 * q + 1] = f.y;
      v[4 * q + 2] = f.z;
      v[4 * q + 3] = f.w;
    }
    pipe.consumer_release();  // the window is in registers: the stage may be refilled
    read_stage = read_stage + 1 == stencil_stages ? 0 : read_stage + 1;
    float r[4];
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      float acc = 0.f;
#pragma unroll
      for (int j = -R; j <= R; ++j) acc += taps.w[j + R] * v[halo + o + j];
      r[o] = acc;
    }
    reinterpret_cast<float4*>(out + first_of(k))[threadIdx.x] = make_float4(r[0], r[1], r[2], r[3]);
  }
}

//! out[i] = sum_j taps.w[j + R] * in[i + j] for i in [0, n), zero boundary, on `stream`.
//! Requires n % 1024 == 0 and 16-byte-aligned, non-overlapping in and out; otherwise returns
//! cudaErrorInvalidValue. One wave of persistent blocks (as many as fit on the device).
template <int R>
[[nodiscard]] cudaError_t stencil_pipeline(const float* in, float* out, std::int64_t n, const StencilTaps<R>& taps,
                                           cudaStream_t stream = 0) {
  if (n < 0 || n % stencil_tile != 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  if (out == nullptr || in == nullptr || reinterpret_cast<std::uintptr_t>(out) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(in) % 16 != 0)
    return cudaErrorInvalidValue;
  int device = 0, sms = 0, per_sm = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
    return e;
  if (const cudaError_t e =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stencil_pipeline_kernel<R>, stencil_threads, 0);
      e != cudaSuccess)
    return e;
  const std::int64_t tiles = n / stencil_tile;
  const std::int64_t wave = static_cast<std::int64_t>(sms) * (per_sm > 0 ? per_sm : 1);
  const auto blocks = static_cast<unsigned>(tiles < wave ? tiles : wave);
  stencil_pipeline_kernel<R><<<blocks, stencil_threads, 0, stream>>>(in, out, n, taps);
  return cudaGetLastError();
}

}  // namespace peers
