#include <tilecraft/util/functional.cuh>
#include <tilecraft/warp/warp_scan.cuh>
// A count with a user-written copy: not trivially copyable, so not shuffled as words.
struct Tally {
  int n;
  Tally() = default;
  __host__ __device__ Tally(const Tally& o) : n(o.n) {}
  __host__ __device__ Tally& operator=(const Tally& o) {
    n = o.n;
    return *this;
  }
};
struct AddTally {
  __host__ __device__ Tally operator()(const Tally& a, const Tally& b) const {
    Tally t;
    t.n = a.n + b.n;
    return t;
  }
};
__global__ void k(Tally* p) { p[threadIdx.x] = tilecraft::warp_inclusive_scan<32>(p[threadIdx.x], AddTally{}); }
