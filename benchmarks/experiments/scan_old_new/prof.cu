// Scans and select_if of two library versions, CUB and a device-to-device memcpy of the same
// bytes in one process: L2 flushed before each sample (256 MiB written), medians of 15, us.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "common.cuh"

#include "../cuda_check.cuh"

static void* flush_buf;
static void flush() { CK(cudaMemsetAsync(flush_buf, 1, 256 << 20)); }
static double median_us(const std::function<void()>& f, int reps = 15) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    flush();
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
static std::vector<T> get(const T* d, std::size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <class T, class Old, class New, class Cub>
static void scan_case(const char* name, std::int64_t n, Old old_fn, New new_fn, Cub cub_fn) {
  std::vector<T> h(static_cast<std::size_t>(n));
  std::mt19937 g(static_cast<unsigned>(n));
  for (auto& x : h)
    x = static_cast<T>(std::is_floating_point_v<T> ? (g() % 2001) / 1000.0 - 1.0 : (int)(g() % 2001) - 1000);
  T *in, *out, *ref;
  CK(cudaMalloc(&in, n * sizeof(T)));
  CK(cudaMalloc(&out, n * sizeof(T)));
  CK(cudaMalloc(&ref, n * sizeof(T)));
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  std::size_t bo = 0, bn = 0, bc = 0;
  CK(old_fn(nullptr, bo, in, out, n, nullptr));
  CK(new_fn(nullptr, bn, in, out, n, nullptr));
  CK(cub_fn(nullptr, bc, in, ref, n));
  void *to, *tn, *tcub;
  CK(cudaMalloc(&to, bo));
  CK(cudaMalloc(&tn, bn));
  CK(cudaMalloc(&tcub, bc));
  // Correctness: new against CUB (exact for integers, relative for floats), and new twice.
  CK(cub_fn(tcub, bc, in, ref, n));
  CK(new_fn(tn, bn, in, out, n, nullptr));
  CK(cudaDeviceSynchronize());
  const auto r = get(ref, n), a = get(out, n);
  CK(new_fn(tn, bn, in, out, n, nullptr));
  CK(cudaDeviceSynchronize());
  const auto a2 = get(out, n);
  std::size_t bad = 0, diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double tol = std::is_floating_point_v<T> ? 1e-3 * (1.0 + std::abs((double)r[i])) + 1e-2 : 0.0;
    bad += std::abs((double)a[i] - (double)r[i]) > tol;
    diff += std::memcmp(&a[i], &a2[i], sizeof(T)) != 0;
  }
  const double t_old = median_us([&] { CK(old_fn(to, bo, in, out, n, nullptr)); });
  const double t_new = median_us([&] { CK(new_fn(tn, bn, in, out, n, nullptr)); });
  const double t_cub = median_us([&] { CK(cub_fn(tcub, bc, in, ref, n)); });
  const double t_cpy = median_us([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
  std::printf(
      "%-12s n=2^%-5.2f old %9.2f  new %9.2f  cub %9.2f  memcpy %9.2f | vs cub old %.3f new %.3f | vs memcpy new %.3f "
      "| wrong %zu, run-to-run diffs %zu\n",
      name, std::log2((double)n), t_old, t_new, t_cub, t_cpy, t_cub / t_old, t_cub / t_new, t_cpy / t_new, bad, diff);
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(ref));
  CK(cudaFree(to));
  CK(cudaFree(tn));
  CK(cudaFree(tcub));
}

static void select_case(std::int64_t n) {
  std::vector<float> h(static_cast<std::size_t>(n));
  std::mt19937 g(5);
  for (auto& x : h) x = (g() % 2001) / 1000.0f - 1.0f;
  float *in, *out, *ref;
  long long *cnt, *cref;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&ref, n * 4));
  CK(cudaMalloc(&cnt, 8));
  CK(cudaMalloc(&cref, 8));
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  std::size_t bo = 0, bn = 0, bc = 0;
  CK(old_select_f32(nullptr, bo, in, out, cnt, n, nullptr));
  CK(new_select_f32(nullptr, bn, in, out, cnt, n, nullptr));
  CK(cub::DeviceSelect::If(nullptr, bc, in, ref, cref, n, Positive{}));
  void *to, *tn, *tc;
  CK(cudaMalloc(&to, bo));
  CK(cudaMalloc(&tn, bn));
  CK(cudaMalloc(&tc, bc));
  CK(cub::DeviceSelect::If(tc, bc, in, ref, cref, n, Positive{}));
  CK(new_select_f32(tn, bn, in, out, cnt, n, nullptr));
  CK(cudaDeviceSynchronize());
  long long c1, c2;
  CK(cudaMemcpy(&c1, cnt, 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&c2, cref, 8, cudaMemcpyDeviceToHost));
  const auto a = get(out, c1), r = get(ref, c2);
  const bool ok = c1 == c2 && std::memcmp(a.data(), r.data(), c1 * 4) == 0;
  const double t_old = median_us([&] { CK(old_select_f32(to, bo, in, out, cnt, n, nullptr)); });
  const double t_new = median_us([&] { CK(new_select_f32(tn, bn, in, out, cnt, n, nullptr)); });
  const double t_cub = median_us([&] { CK(cub::DeviceSelect::If(tc, bc, in, ref, cref, n, Positive{})); });
  std::printf("select_f32   n=2^%-5.2f old %9.2f  new %9.2f  cub %9.2f | vs cub old %.3f new %.3f | %s\n",
              std::log2((double)n), t_old, t_new, t_cub, t_cub / t_old, t_cub / t_new, ok ? "equal to CUB" : "WRONG");
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(ref));
  CK(cudaFree(cnt));
  CK(cudaFree(cref));
  CK(cudaFree(to));
  CK(cudaFree(tn));
  CK(cudaFree(tc));
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&flush_buf, 256 << 20));
  const std::string what = argc > 1 ? argv[1] : "all";
  auto cub_f32 = [](void* t, std::size_t& b, const float* i, float* o, std::int64_t n) {
    return cub::DeviceScan::InclusiveSum(t, b, i, o, n);
  };
  auto cub_i32 = [](void* t, std::size_t& b, const int* i, int* o, std::int64_t n) {
    return cub::DeviceScan::InclusiveSum(t, b, i, o, n);
  };
  auto cub_i64 = [](void* t, std::size_t& b, const std::int64_t* i, std::int64_t* o, std::int64_t n) {
    return cub::DeviceScan::ExclusiveSum(t, b, i, o, n);
  };
  if (what == "one") {  // one cluster's size and one past it, for a profiler
    for (std::int64_t n : {std::int64_t{1} << 16, (std::int64_t{1} << 16) + 1})
      scan_case<float>("scan_f32", n, old_scan_f32, new_scan_f32, cub_f32);
    return 0;
  }
  if (what == "small") {  // the sizes of one cluster and just past it (2^16 + 1: 33 small tiles)
    for (std::int64_t n :
         {std::int64_t{1} << 12, std::int64_t{1} << 14, (std::int64_t{1} << 14) + 1, std::int64_t{1} << 15,
          std::int64_t{1} << 16, (std::int64_t{1} << 16) + 1, std::int64_t{1} << 17, std::int64_t{1} << 20}) {
      scan_case<float>("scan_f32", n, old_scan_f32, new_scan_f32, cub_f32);
      scan_case<int>("scan_i32", n, old_scan_i32, new_scan_i32, cub_i32);
    }
    return 0;
  }
  if (what == "mid") {  // the sizes a scan in two passes serves (its input in L2), and past them
    for (int p = 14; p <= 25; ++p) {
      scan_case<float>("scan_f32", std::int64_t{1} << p, old_scan_f32, new_scan_f32, cub_f32);
      scan_case<int>("scan_i32", std::int64_t{1} << p, old_scan_i32, new_scan_i32, cub_i32);
    }
    for (int p : {18, 20, 22, 23, 24})
      scan_case<std::int64_t>("scan_i64", std::int64_t{1} << p, old_scan_i64, new_scan_i64, cub_i64);
    return 0;
  }
  if (what == "far") {  // past one wave: the single pass, its look-back's walk; f32 2^24 three times
    for (double p : {23.5, 24.0, 24.0, 24.0, 24.5, 25.0, 26.0, 28.0}) {
      const auto n = static_cast<std::int64_t>(std::exp2(p));
      scan_case<float>("scan_f32", n, old_scan_f32, new_scan_f32, cub_f32);
      scan_case<int>("scan_i32", n, old_scan_i32, new_scan_i32, cub_i32);
    }
    scan_case<std::int64_t>("scan_i64", std::int64_t{1} << 27, old_scan_i64, new_scan_i64, cub_i64);
    for (int p : {24, 26, 28}) select_case(std::int64_t{1} << p);
    return 0;
  }
  if (what == "window") {  // around the two-pass window's upper bound (a fraction of the L2)
    for (std::int64_t n : {std::int64_t{1} << 21, std::int64_t{3} << 20, std::int64_t{1} << 22, std::int64_t{5} << 20,
                           std::int64_t{6} << 20}) {
      for (int r = 0; r < 2; ++r) {  // (each twice: the spread at these sizes is 2-4%)
        scan_case<float>("scan_f32", n, old_scan_f32, new_scan_f32, cub_f32);
        scan_case<int>("scan_i32", n, old_scan_i32, new_scan_i32, cub_i32);
      }
    }
    for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{3} << 19, std::int64_t{1} << 21, std::int64_t{5} << 19})
      scan_case<std::int64_t>("scan_i64", n, old_scan_i64, new_scan_i64, cub_i64);
    return 0;
  }
  for (int p : {16, 20, 22, 24, 26, 28})
    scan_case<float>("scan_f32", std::int64_t{1} << p, old_scan_f32, new_scan_f32, cub_f32);
  for (int p : {20, 24, 28}) scan_case<int>("scan_i32", std::int64_t{1} << p, old_scan_i32, new_scan_i32, cub_i32);
  scan_case<std::int64_t>("scan_i64", std::int64_t{1} << 27, old_scan_i64, new_scan_i64, cub_i64);
  for (int p : {20, 24, 28}) select_case(std::int64_t{1} << p);
  return 0;
}
