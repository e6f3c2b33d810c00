#include <tilecraft/memory/shared_tile.cuh>
struct Three {
  char c[3];
};
__global__ void k(Three* o) {
  __shared__ tilecraft::SharedTile<Three, 8, 0> t;
  o[0] = t(0, 0);
}
