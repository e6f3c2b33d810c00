// A consumer's host-only source (g++): layouts and the bank model are host-usable.
#include <tilecraft/memory/bank_model.cuh>
#include <tilecraft/memory/shared_tile.cuh>

#include <cstdio>

int main() {
  using Tile = tilecraft::SharedTile<float, 32, 1>;
  static_assert(tilecraft::bank::column_wavefronts<Tile>() == 1);
#ifdef CONSUMER_PACKAGE_VERSION
  static_assert(TILECRAFT_VERSION == CONSUMER_PACKAGE_VERSION,
                "config.cuh's TILECRAFT_VERSION_* must match the CMake package version (project(tilecraft VERSION))");
#endif
  std::printf("consumer_host: tilecraft %d, %zu-byte tile\n", TILECRAFT_VERSION, Tile::bytes);
  return 0;
}
