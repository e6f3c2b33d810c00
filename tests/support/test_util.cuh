// Shared test utilities: a printed, overridable seed; random host data copied to the device;
// poisoned device outputs; floating-point tolerances against a double reference.
#pragma once

#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <type_traits>
#include <vector>

#include <tilecraft/util/error.cuh>

namespace tilecraft::test {

//! The run's base seed: TILECRAFT_TEST_SEED if set, otherwise fresh from /dev/urandom (or the
//! clock where that cannot be read).
inline std::uint64_t seed() {
  static const std::uint64_t s = []() -> std::uint64_t {
    if (const char* env = std::getenv("TILECRAFT_TEST_SEED")) return std::strtoull(env, nullptr, 10);
    std::uint64_t fresh = 0;
    if (std::FILE* f = std::fopen("/dev/urandom", "rb")) {
      const std::size_t got = std::fread(&fresh, sizeof fresh, 1, f);
      std::fclose(f);
      if (got == 1) return fresh;
    }
    return static_cast<std::uint64_t>(std::time(nullptr)) * 0x9E3779B97F4A7C15ull ^ std::clock();
  }();
  return s;
}

//! Whether the command line only asks doctest to list, count or explain (test discovery): the
//! mains then print nothing of their own and, without a GPU, still answer.
inline bool only_lists(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    for (const char* flag : {"-ltc", "-lts", "-lr", "-h", "-?", "-v", "-c"}) {
      if (std::strcmp(a, flag) == 0) return true;
    }
    for (const char* prefix : {"--list", "--dt-list", "--help", "--version", "--count", "--dt-count"}) {
      if (std::strncmp(a, prefix, std::strlen(prefix)) == 0) return true;
    }
  }
  return false;
}

//! True under the GPU check's sanitizer runs (TILECRAFT_TEST_HUGE=0): the long-running cases
//! shrink to sizes a sanitizer finishes in seconds.
inline bool sanitizer_sized() {
  const char* env = std::getenv("TILECRAFT_TEST_HUGE");
  return env != nullptr && env[0] == '0' && env[1] == '\0';
}

//! Whether a case also runs its peer library's kernels (CUB's) beside the host reference: not in
//! sanitizer-sized runs, where the tools would check the peer's kernels too, at the cost of the
//! library's own (a histogram's privatized shared atomics cost racecheck as much in CUB's kernels
//! as in the library's; device reduce's integer cases ran four CUB reductions to four of the
//! library's); the full run compares with the peer. (The GEMM tests' cuBLAS: cublas_if_full.)
inline bool peers_run() { return !sanitizer_sized(); }

//! An earlier runtime call's cudaErrorInvalidValue, left in the last-error slot, is still
//! there (once) after `refused()`, a library call refusing its own arguments with the same code,
//! has returned cudaErrorInvalidValue: the slot is its owner's. Skipped under compute-sanitizer
//! (TILECRAFT_TEST_SANITIZER), which reports the runtime call failing on purpose.
template <class Refused>
void check_keeps_earlier_invalid_value(Refused&& refused) {
  if (std::getenv("TILECRAFT_TEST_SANITIZER") != nullptr) return;
  (void)cudaGetLastError();
  CHECK(cudaMalloc(static_cast<void**>(nullptr), 16) == cudaErrorInvalidValue);
  CHECK(refused() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
}

//! True under the GPU check's racecheck runs (TILECRAFT_TEST_SANITIZER=racecheck beside
//! TILECRAFT_TEST_HUGE=0). Racecheck tracks every shared-memory access of every block and costs
//! several times the other tools; a block's accesses do not depend on how many other blocks or
//! operand layouts a case runs, so cases may run fewer of those there, as long as every kernel
//! and every path inside it (partial tiles, the ring of stages wrapping) still runs.
inline bool racecheck_sized() {
  const char* env = std::getenv("TILECRAFT_TEST_SANITIZER");
  return sanitizer_sized() && env != nullptr && std::strcmp(env, "racecheck") == 0;
}

//! A random bit generator (xoshiro256**, seeded through splitmix64), usable with the standard
//! distributions: a small one of the tests' own, so that a test unit need not include <random>
//! (a second or two of every nvcc pass of every unit).
class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed_value) {
    for (auto& word : state_) {
      seed_value += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed_value;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      word = z ^ (z >> 31);
    }
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  //! Uniform in [lo, hi] (lo <= hi).
  long long uniform_int(long long lo, long long hi) {
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;  // 0: all 2^64
    // (The modulo's bias is below span / 2^64: nothing a test can see.)
    const std::uint64_t draw = span == 0 ? (*this)() : (*this)() % span;
    return static_cast<long long>(static_cast<std::uint64_t>(lo) + draw);
  }
  //! Uniform in [lo, hi).
  double uniform_real(double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>((*this)() >> 11) * 0x1.0p-53);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

//! A generator for one test case: the base seed mixed with a per-call salt.
inline Rng rng(std::uint64_t salt) { return Rng(seed() ^ (salt * 0x9E3779B97F4A7C15ull)); }

//! n random values: integers uniform in [lo, hi], floating point uniform in [lo, hi).
template <class T>
std::vector<T> random_vector(std::size_t n, double lo, double hi, std::uint64_t salt) {
  auto g = rng(salt);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    for (auto& x : v) x = static_cast<T>(g.uniform_int(static_cast<long long>(lo), static_cast<long long>(hi)));
  } else {
    for (auto& x : v) x = static_cast<T>(g.uniform_real(lo, hi));
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
  // (A destructor cannot report: a free that fails means a broken context, which the test's
  // own checks, sync_and_check, report.)
  ~DeviceBuffer() { (void)cudaFree(raw_); }

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
  //! How many elements no longer hold poison()'s pattern (byte for byte): 0 where nothing wrote
  //! the buffer since (a refused call must launch nothing). Synchronizes through the copy.
  std::size_t unpoisoned() const {
    std::vector<unsigned char> bytes(n_ * sizeof(T));
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(bytes.data(), raw_, bytes.size(), cudaMemcpyDeviceToHost));
    std::size_t written = 0;
    for (std::size_t e = 0; e < n_; ++e) {
      bool same = true;
      for (std::size_t b = 0; b < sizeof(T); ++b) same = same && bytes[e * sizeof(T) + b] == 0xA5;
      written += same ? 0 : 1;
    }
    return written;
  }

 private:
  void* raw_ = nullptr;
  std::size_t n_;
};

//! A CUDA stream (cudaStreamCreateWithFlags), destroyed on scope exit: on every exit, a failed
//! REQUIRE's too, so a test case leaves no stream behind for the next.
class Stream {
 public:
  explicit Stream(unsigned flags = cudaStreamDefault) {
    TILECRAFT_THROW_IF_ERROR(cudaStreamCreateWithFlags(&stream_, flags));
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { (void)cudaStreamDestroy(stream_); }

  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }  // NOLINT: passed where a cudaStream_t goes
  void synchronize() const { TILECRAFT_THROW_IF_ERROR(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

//! Page-locked host memory for n elements of T (asynchronous copies overlap only from it),
//! freed on scope exit.
template <class T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t n) : n_(n) {
    static_assert(std::is_trivially_copyable_v<T>, "PinnedBuffer: T must be trivially copyable");
    TILECRAFT_THROW_IF_ERROR(cudaMallocHost(&raw_, n * sizeof(T) + 1));
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { (void)cudaFreeHost(raw_); }

  T* get() const { return static_cast<T*>(raw_); }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) const { return get()[i]; }

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
