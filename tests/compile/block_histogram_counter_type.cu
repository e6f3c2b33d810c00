#include <tilecraft/block/block_histogram.cuh>
__global__ void k(const unsigned char* in, int* d_hist) {
  __shared__ tilecraft::BlockHistogramStorage<256, 128> hist;
  tilecraft::block_histogram_init(hist);
  tilecraft::block_histogram_add(hist, in[threadIdx.x]);
  tilecraft::block_histogram_merge(hist, d_hist);  // int counters
}
