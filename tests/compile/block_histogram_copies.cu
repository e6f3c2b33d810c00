#include <tilecraft/block/block_histogram.cuh>
// 128 threads are 4 warps: at most 4 copies.
__global__ void k() {
  __shared__ tilecraft::BlockHistogramStorage<64, 128, tilecraft::BlockHistogramAlgorithm::warps, 5> hist;
  tilecraft::block_histogram_init(hist);
}
