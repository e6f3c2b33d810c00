// Which runtime calls, made by this thread for a stream that is not capturing, does an open
// capture in cudaStreamCaptureModeGlobal (on another stream, same thread) refuse and
// invalidate? Each call the launchers make runs once with the capture open, in the thread's
// default (global) mode and then under cudaStreamCaptureModeRelaxed; printed: the call's status
// and cudaStreamEndCapture's. Not built by CMake: bash benchmarks/experiments/capture_calls/run.sh
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

#include "../cuda_check.cuh"

__global__ void touch(int* p) { p[threadIdx.x] = static_cast<int>(threadIdx.x); }

int main() {
  cudaStream_t cap, work;
  CK(cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CK(cudaMemPoolCreate(&pool, &props));
  std::uint64_t keep = 1ull << 30;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  {  // warm both pools: the probes' requests find memory mapped
    void* p;
    CK(cudaMallocFromPoolAsync(&p, 1 << 20, pool, work));
    CK(cudaFreeAsync(p, work));
    CK(cudaMallocAsync(&p, 1 << 20, work));
    CK(cudaFreeAsync(p, work));
    CK(cudaStreamSynchronize(work));
  }
  int* buf;
  CK(cudaMalloc(&buf, 4096));
  void* pool_ptr = nullptr;
  void* default_ptr = nullptr;
  struct Probe {
    const char* what;
    std::function<cudaError_t()> call;
  };
  std::vector<Probe> probes = {
      {"cudaMallocFromPoolAsync (private pool)",
       [&] { return cudaMallocFromPoolAsync(&pool_ptr, 1 << 20, pool, work); }},
      {"cudaFreeAsync (private pool's)",
       [&] { return pool_ptr ? cudaFreeAsync(pool_ptr, work) : cudaErrorInvalidValue; }},
      {"cudaMallocAsync (default pool)", [&] { return cudaMallocAsync(&default_ptr, 1 << 20, work); }},
      {"cudaFreeAsync (default pool's)",
       [&] { return default_ptr ? cudaFreeAsync(default_ptr, work) : cudaErrorInvalidValue; }},
      {"cudaMemsetAsync", [&] { return cudaMemsetAsync(buf, 0, 4096, work); }},
      {"cudaMemset2DAsync", [&] { return cudaMemset2DAsync(buf, 256, 0, 128, 8, work); }},
      {"cudaMemcpyAsync D2D", [&] { return cudaMemcpyAsync(buf + 512, buf, 2048, cudaMemcpyDeviceToDevice, work); }},
      {"cudaLaunchKernelEx",
       [&] {
         cudaLaunchConfig_t c{};
         c.gridDim = 1;
         c.blockDim = 256;
         c.stream = work;
         return cudaLaunchKernelEx(&c, touch, buf);
       }},
      {"cudaLaunchKernelEx cooperative",
       [&] {
         cudaLaunchConfig_t c{};
         c.gridDim = 2;
         c.blockDim = 256;
         c.stream = work;
         cudaLaunchAttribute a{};
         a.id = cudaLaunchAttributeCooperative;
         a.val.cooperative = 1;
         c.attrs = &a;
         c.numAttrs = 1;
         return cudaLaunchKernelEx(&c, touch, buf);
       }},
      {"cudaLaunchKernelEx programmatic stream serialization",
       [&] {
         cudaLaunchConfig_t c{};
         c.gridDim = 1;
         c.blockDim = 256;
         c.stream = work;
         cudaLaunchAttribute a{};
         a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
         a.val.programmaticStreamSerializationAllowed = 1;
         c.attrs = &a;
         c.numAttrs = 1;
         return cudaLaunchKernelEx(&c, touch, buf);
       }},
      {"cudaFuncGetAttributes",
       [&] {
         cudaFuncAttributes f{};
         return cudaFuncGetAttributes(&f, touch);
       }},
      {"cudaFuncSetAttribute",
       [&] { return cudaFuncSetAttribute(touch, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536); }},
      {"cudaOccupancyMaxActiveBlocksPerMultiprocessor",
       [&] {
         int b = 0;
         return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, touch, 256, 0);
       }},
      {"cudaMemPoolGetAttribute",
       [&] {
         std::uint64_t v = 0;
         return cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v);
       }},
      {"cudaMemPoolSetAttribute",
       [&] { return cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep); }},
      {"cudaMemGetInfo",
       [&] {
         std::size_t f = 0, t = 0;
         return cudaMemGetInfo(&f, &t);
       }},
      {"cudaStreamIsCapturing (the other stream)",
       [&] {
         cudaStreamCaptureStatus s;
         return cudaStreamIsCapturing(work, &s);
       }},
      {"cudaGetDeviceProperties",
       [&] {
         cudaDeviceProp p;
         return cudaGetDeviceProperties(&p, 0);
       }},
      {"cudaDeviceGetAttribute",
       [&] {
         int v = 0;
         return cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0);
       }},
      {"cudaGetDriverEntryPointByVersion",
       [&] {
         void* fn = nullptr;
         cudaDriverEntryPointQueryResult q;
         return cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
       }},
      {"cudaMemPoolTrimTo", [&] { return cudaMemPoolTrimTo(pool, 1ull << 30); }},
  };
  for (int relaxed = 0; relaxed < 2; ++relaxed) {
    std::printf("--- this thread's mode: %s\n", relaxed ? "relaxed" : "global (default)");
    for (const Probe& p : probes) {
      CK(cudaStreamBeginCapture(cap, cudaStreamCaptureModeGlobal));
      cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
      if (relaxed) CK(cudaThreadExchangeStreamCaptureMode(&mode));
      const cudaError_t called = p.call();
      if (relaxed) CK(cudaThreadExchangeStreamCaptureMode(&mode));
      cudaGraph_t g = nullptr;
      const cudaError_t ended = cudaStreamEndCapture(cap, &g);
      if (g) cudaGraphDestroy(g);
      (void)cudaGetLastError();
      CK(cudaStreamSynchronize(work));
      std::printf("%-56s call %-36s capture end %s\n", p.what, cudaGetErrorName(called), cudaGetErrorName(ended));
    }
    if (pool_ptr) cudaFreeAsync(pool_ptr, work), pool_ptr = nullptr;
    if (default_ptr) cudaFreeAsync(default_ptr, work), default_ptr = nullptr;
    (void)cudaGetLastError();
    CK(cudaStreamSynchronize(work));
  }
  return 0;
}
