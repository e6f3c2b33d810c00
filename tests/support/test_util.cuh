// Shared test utilities: a printed, overridable seed; random host data copied to the device;
// poisoned device outputs; floating-point tolerances against a double reference.
#pragma once

#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <tilecraft/util/error.cuh>

namespace tilecraft::test {

//! The run's base seed: TILECRAFT_TEST_SEED if set, otherwise fresh from std::random_device.
inline std::uint64_t seed() {
  static const std::uint64_t s = []() -> std::uint64_t {
    if (const char* env = std::getenv("TILECRAFT_TEST_SEED")) return std::strtoull(env, nullptr, 10);
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  return s;
}

//! A generator for one test case: the base seed mixed with a per-call salt.
inline std::mt19937_64 rng(std::uint64_t salt) { return std::mt19937_64(seed() ^ (salt * 0x9E3779B97F4A7C15ull)); }

//! n random values: integers uniform in [lo, hi], floating point uniform in [lo, hi).
template <class T>
std::vector<T> random_vector(std::size_t n, double lo, double hi, std::uint64_t salt) {
  auto g = rng(salt);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<long long> d(static_cast<long long>(lo), static_cast<long long>(hi));
    for (auto& x : v) x = static_cast<T>(d(g));
  } else {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = static_cast<T>(d(g));
  }
  return v;
}

//! Owning device buffer of n elements of T, freed on scope exit.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n, std::size_t extra_bytes = 0) : n_(n) {
    TILECRAFT_THROW_IF_ERROR(cudaMalloc(&raw_, n * sizeof(T) + extra_bytes + 1));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(raw_); }

  T* get() const { return static_cast<T*>(raw_); }
  std::size_t size() const { return n_; }
  void upload(const std::vector<T>& host) {
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(raw_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(host.data(), raw_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  //! Fills every byte with 0xA5: a pattern no correct output is likely to equal (a large
  //! negative float/double, an odd negative integer), so unwritten elements show.
  void poison() { TILECRAFT_THROW_IF_ERROR(cudaMemset(raw_, 0xA5, n_ * sizeof(T))); }

 private:
  void* raw_ = nullptr;
  std::size_t n_;
};

//! The poison pattern as a T value.
template <class T>
T poison_value() {
  T v;
  std::memset(&v, 0xA5, sizeof(T));
  return v;
}

//! A T whose bytes are spread from the random word x (any trivially copyable T, also types with
//! no arithmetic: tile copies move bytes).
template <class T>
T make_value(std::uint64_t x) {
  T v;
  unsigned char bytes[sizeof(T)];
  for (std::size_t i = 0; i < sizeof(T); ++i) bytes[i] = static_cast<unsigned char>((x >> (8 * (i % 8))) ^ (i * 37));
  std::memcpy(&v, bytes, sizeof(T));
  return v;
}

//! Bitwise equality (NaN payloads and padding bytes included).
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

//! Bound on |computed - exact| for a sum of n terms with absolute sum `abs_sum`, evaluated in
//! a floating type with unit roundoff `eps` by any association whose longest chain of
//! dependent additions is `depth` (n for a sequential loop, ~log2(n) for a tree).
inline double sum_tolerance(double abs_sum, double depth, double eps) { return 2.0 * depth * eps * abs_sum + 1e-30; }

inline void sync_and_check() {
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
}

}  // namespace tilecraft::test
