#include <cuda_fp16.h>
#include <tilecraft/memory/bank_model.cuh>
#include <tilecraft/memory/shared_tile.cuh>
// Rows of 65 halves (130 bytes): ldmatrix's 16-byte rows are not aligned, so the model refuses.
using Tile = tilecraft::SharedMatrix<__half, 16, 64, tilecraft::Padded<1>>;
int wavefronts() {
  return tilecraft::bank::tile_ldmatrix_wavefronts<Tile>(
      [](int lane) {
        return tilecraft::bank::Coord{lane % 8, 0};
      },
      1);
}
