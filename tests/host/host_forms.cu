// The .cu half of test_host_forms (see test_host_forms.cpp).
#include "host_forms.h"

#include <vector>

#include <tilecraft/device/reduce.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/device/transpose.cuh>
#include <tilecraft/util/functional.cuh>

namespace tilecraft::test {

HostFormsRun reduce_from_cu() {
  const HostFormsReduce volatile call = &tilecraft::reduce<void, float, float, Sum, float>;
  HostFormsRun run{cudaSuccess, false, 0.0f, 0.0f};
  const std::size_t n = static_cast<std::size_t>(host_forms_items);
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 7);  // exact sums
  for (float v : host) run.expected += v;
  float* d = nullptr;
  if (const cudaError_t e = cudaMalloc(&d, (n + 1) * sizeof(float)); e != cudaSuccess) {
    (void)cudaGetLastError();
    // No device: the same call with fake addresses fails at nvcc's first CUDA call.
    const auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
    auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
    void* temp = reinterpret_cast<void*>(std::uintptr_t{1} << 32);
    std::size_t bytes = 0;
    run.status = call(nullptr, bytes, in, out, host_forms_items, Sum{}, 0.0f, nullptr);
    if (run.status == cudaSuccess) run.status = call(temp, bytes, in, out, host_forms_items, Sum{}, 0.0f, nullptr);
    (void)cudaGetLastError();
    return run;
  }
  run.had_device = true;
  void* temp = nullptr;
  std::size_t bytes = 0;
  run.status = cudaMemcpy(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  if (run.status == cudaSuccess) run.status = call(nullptr, bytes, d, d + n, host_forms_items, Sum{}, 0.0f, nullptr);
  if (run.status == cudaSuccess) run.status = cudaMalloc(&temp, bytes);
  if (run.status == cudaSuccess) run.status = call(temp, bytes, d, d + n, host_forms_items, Sum{}, 0.0f, nullptr);
  if (run.status == cudaSuccess) run.status = cudaMemcpy(&run.sum, d + n, sizeof(float), cudaMemcpyDeviceToHost);
  (void)cudaFree(temp);
  (void)cudaFree(d);
  return run;
}

std::size_t scan_query_from_cu(std::int64_t n) {
  std::size_t bytes = 0;
  const auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  return tilecraft::inclusive_scan(nullptr, bytes, in, out, n, Sum{}) == cudaSuccess ? bytes : 0;
}

std::size_t select_query_from_cu(std::int64_t n) {
  std::size_t bytes = 0;
  const auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  auto* count = reinterpret_cast<long long*>(std::uintptr_t{1} << 34);
  return tilecraft::select_if(nullptr, bytes, in, out, count, n, HostFormsPositive{}) == cudaSuccess ? bytes : 0;
}

HostFormsTransposeRun transpose_from_cu() {
  const HostFormsTranspose volatile call = &tilecraft::transpose<void, float>;
  HostFormsTransposeRun run{cudaSuccess, false, false};
  const std::int64_t m = host_forms_rows, n = host_forms_cols;
  const auto count = static_cast<std::size_t>(m * n);
  float* d = nullptr;
  if (const cudaError_t e = cudaMalloc(&d, 2 * count * sizeof(float)); e != cudaSuccess) {
    (void)cudaGetLastError();
    // No device: the same call with fake addresses fails at nvcc's first CUDA call.
    const auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
    auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
    run.status = call(in, n, out, m, m, n, nullptr);
    (void)cudaGetLastError();
    return run;
  }
  run.had_device = true;
  std::vector<float> host(count), back(count, -1.0f);
  for (std::size_t i = 0; i < count; ++i) host[i] = static_cast<float>(i);
  run.status = cudaMemcpy(d, host.data(), count * sizeof(float), cudaMemcpyHostToDevice);
  if (run.status == cudaSuccess) run.status = call(d, n, d + count, m, m, n, nullptr);
  if (run.status == cudaSuccess) {
    run.status = cudaMemcpy(back.data(), d + count, count * sizeof(float), cudaMemcpyDeviceToHost);
  }
  run.correct = run.status == cudaSuccess;
  for (std::int64_t r = 0; r < m && run.correct; ++r) {
    for (std::int64_t c = 0; c < n; ++c) run.correct = run.correct && back[c * m + r] == host[r * n + c];
  }
  (void)cudaFree(d);
  return run;
}

}  // namespace tilecraft::test
