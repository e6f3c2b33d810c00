#include <tilecraft/block/block_histogram.cuh>
__global__ void k() {
  __shared__ tilecraft::BlockHistogramStorage<0, 128> hist;
  tilecraft::block_histogram_init(hist);
}
