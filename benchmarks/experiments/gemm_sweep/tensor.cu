// The last-wave clause of issue 21 for the tensor-core maths (no product with M, N, K >= 1024
// below 0.85x cuBLAS in every math) on a sweep of shapes and all four operand layouts:
// tilecraft::gemm beside cublasGemmEx in the same math (BF16 and FP16 operands with FP32
// accumulators and C; TF32 against cuBLAS's FAST_TF32; TF32x3 against cuBLAS's pedantic FP32,
// its own goal's peer). Row-major C = op(A) op(B), alpha 1, beta 0; a layout NT means op(A) =
// none (A m x k, K-contiguous) and op(B) = transpose (B stored n x k, K-contiguous). Medians of
// 11 (experiment_util.cuh's median_us, L2 flushed before each run); each line also carries the
// largest |C - C_cuBLAS| / max |C_cuBLAS| of the four maths, so that a wrong result shows.
// Built and run by run_tensor.sh (argv: shapes as MxNxK).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <tilecraft/device/gemm.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../cublas_check.cuh"
#include "../experiment_util.cuh"

// The launchers come compiled from the library's instance units (run_tensor.sh builds them
// beside this file, as the benchmark binary links them).
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __nv_bfloat16);
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __half);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32x3);

namespace {

template <class T>
__global__ void fill(T* p, std::size_t count, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    p[i] =
        static_cast<T>(static_cast<float>(index_hash(static_cast<long long>(i) + 977ll * seed) % 1021) / 512.0f - 1.0f);
  }
}

// max |x - y| and max |y| as the bits of non-negative floats (which order as unsigned ints).
__global__ void max_diff(const float* x, const float* y, std::size_t count, unsigned* out) {
  float d = 0.0f, r = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    d = fmaxf(d, fabsf(x[i] - y[i]));
    r = fmaxf(r, fabsf(y[i]));
  }
  atomicMax(out, __float_as_uint(d));
  atomicMax(out + 1, __float_as_uint(r));
}

char* flush_buf;
constexpr std::size_t flush_bytes = std::size_t{256} << 20;

}  // namespace

int main(int argc, char** argv) {
  using tilecraft::GemmMath;
  using tilecraft::Op;
  using tilecraft::Order;
  CK(cudaMalloc(&flush_buf, flush_bytes));
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  unsigned* diff;
  CK(cudaMalloc(&diff, 2 * sizeof(unsigned)));
  // TC_NAME: a variant's name, the first column (run_tensor.sh's TC_VARIANTS); TC_HEADER=0: no header.
  const char* name = std::getenv("TC_NAME");
  const char* header = std::getenv("TC_HEADER");
  // TC_LD_ROUND=r: every leading dimension rounded up to a multiple of r elements (rows aligned
  // to r elements with the same M, N, K: the K tail apart from the rows' alignment).
  const char* ld_round_env = std::getenv("TC_LD_ROUND");
  const int ld_round = ld_round_env != nullptr ? std::max(1, std::atoi(ld_round_env)) : 1;
  auto ld_of = [&](int elems) { return (elems + ld_round - 1) / ld_round * ld_round; };
  if (header == nullptr || std::strcmp(header, "0") != 0) {
    std::printf("%-6s %-16s %-3s %21s %21s %21s %21s %9s\n", "", "shape", "AB", "bf16 us (ratio)", "f16 us (ratio)",
                "tf32 us (ratio)", "tf32x3 us (ratio)", "max err");
  }
  for (int arg = 1; arg < argc; ++arg) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(argv[arg], "%dx%dx%d", &m, &n, &k) != 3) {
      std::printf("bad shape %s (MxNxK)\n", argv[arg]);
      return 1;
    }
    const std::size_t a_count = std::max(std::size_t(m) * ld_of(k), std::size_t(k) * ld_of(m)),
                      b_count = std::max(std::size_t(k) * ld_of(n), std::size_t(n) * ld_of(k)),
                      c_count = std::size_t(m) * n;
    float *a, *b, *c, *c_ref;
    __nv_bfloat16 *a_bf, *b_bf;
    __half *a_h, *b_h;
    CK(cudaMalloc(&a, a_count * 4));
    CK(cudaMalloc(&b, b_count * 4));
    CK(cudaMalloc(&c, c_count * 4));
    CK(cudaMalloc(&c_ref, c_count * 4));
    CK(cudaMalloc(&a_bf, a_count * 2));
    CK(cudaMalloc(&b_bf, b_count * 2));
    CK(cudaMalloc(&a_h, a_count * 2));
    CK(cudaMalloc(&b_h, b_count * 2));
    fill<<<512, 256>>>(a, a_count, 1);
    fill<<<512, 256>>>(b, b_count, 2);
    fill<<<512, 256>>>(a_bf, a_count, 1);
    fill<<<512, 256>>>(b_bf, b_count, 2);
    fill<<<512, 256>>>(a_h, a_count, 1);
    fill<<<512, 256>>>(b_h, b_count, 2);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (int layout = 0; layout < 4; ++layout) {
      const Op op_a = layout & 2 ? Op::transpose : Op::none;
      const Op op_b = layout & 1 ? Op::transpose : Op::none;
      const int lda = ld_of(op_a == Op::none ? k : m);
      const int ldb = ld_of(op_b == Op::none ? n : k);
      // cuBLAS is column-major: row-major C^T = op(B)^T op(A)^T, each operand's storage read
      // as its transpose, so the same op flags and leading dimensions.
      const cublasOperation_t ca = op_a == Op::none ? CUBLAS_OP_N : CUBLAS_OP_T;
      const cublasOperation_t cb = op_b == Op::none ? CUBLAS_OP_N : CUBLAS_OP_T;
      const float one = 1.0f, zero = 0.0f;
      float worst = 0.0f;
      auto check = [&] {
        CK(cudaMemset(diff, 0, 2 * sizeof(unsigned)));
        max_diff<<<264, 256>>>(c, c_ref, c_count, diff);
        CK(cudaGetLastError());
        unsigned bits[2];
        CK(cudaMemcpy(bits, diff, sizeof bits, cudaMemcpyDeviceToHost));
        float d, r;
        std::memcpy(&d, &bits[0], 4);
        std::memcpy(&r, &bits[1], 4);
        worst = std::max(worst, r > 0 ? d / r : d);
      };
      // Column i: our time and its ratio to the peer's (both medians), then the results compared.
      char cells[4][32];
      auto measure = [&](int i, auto&& peer, auto&& ours) {
        const float tp = median_us(peer, flush_buf, flush_bytes, 0), to = median_us(ours, flush_buf, flush_bytes, 0);
        std::snprintf(cells[i], sizeof cells[i], "%8.1f (%5.3f)", to, tp / to);
        check();
      };
      auto cublas_ex = [&](const void* bb, const void* aa, cudaDataType_t t, cublasComputeType_t ct) {
        CKB(cublasGemmEx(h, cb, ca, n, m, k, &one, bb, t, ldb, aa, t, lda, &zero, c_ref, CUDA_R_32F, n, ct,
                         CUBLAS_GEMM_DEFAULT));
      };
      CKB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
      measure(
          0, [&] { cublas_ex(b_bf, a_bf, CUDA_R_16BF, CUBLAS_COMPUTE_32F); },
          [&] { CK(tilecraft::gemm(Order::row_major, op_a, op_b, m, n, k, 1.0f, a_bf, lda, b_bf, ldb, 0.0f, c, n)); });
      measure(
          1, [&] { cublas_ex(b_h, a_h, CUDA_R_16F, CUBLAS_COMPUTE_32F); },
          [&] { CK(tilecraft::gemm(Order::row_major, op_a, op_b, m, n, k, 1.0f, a_h, lda, b_h, ldb, 0.0f, c, n)); });
      measure(
          2, [&] { cublas_ex(b, a, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32); },
          [&] {
            CK(tilecraft::gemm<GemmMath::tf32>(Order::row_major, op_a, op_b, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c,
                                               n));
          });
      CKB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
      measure(
          3, [&] { CKB(cublasSgemm(h, cb, ca, n, m, k, &one, b, ldb, a, lda, &zero, c_ref, n)); },
          [&] {
            CK(tilecraft::gemm<GemmMath::tf32x3>(Order::row_major, op_a, op_b, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c,
                                                 n));
          });
      std::printf("%-6s %5dx%5dx%5d %c%c  %21s %21s %21s %21s %9.2e\n", name != nullptr ? name : "", m, n, k,
                  op_a == Op::none ? 'N' : 'T', op_b == Op::none ? 'N' : 'T', cells[0], cells[1], cells[2], cells[3],
                  worst);
      std::fflush(stdout);
    }
    for (void* p :
         {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(c_ref),
          static_cast<void*>(a_bf), static_cast<void*>(b_bf), static_cast<void*>(a_h), static_cast<void*>(b_h)}) {
      CK(cudaFree(p));
    }
  }
  CKB(cublasDestroy(h));
  return 0;
}
