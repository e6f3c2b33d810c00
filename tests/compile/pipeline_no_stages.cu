#include <tilecraft/memory/pipeline.cuh>
// A pipeline has at least one stage.
__global__ void k() { __shared__ tilecraft::PipelineStorage<tilecraft::SharedTile<float, 32>, 0> s; }
