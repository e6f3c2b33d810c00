#include <tilecraft/block/block_histogram.cuh>
__global__ void k(float x) {
  __shared__ tilecraft::BlockHistogramStorage<64, 128> hist;
  tilecraft::block_histogram_init(hist);
  tilecraft::block_histogram_add(hist, x);
}
