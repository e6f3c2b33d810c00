// doctest main for host tests: they need no GPU and run everywhere. It prints the random seed
// (tests that draw random cases replay with TILECRAFT_TEST_SEED=<seed>).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "test_util.cuh"

int main(int argc, char** argv) {
  if (!tilecraft::test::only_lists(argc, argv)) {
    std::printf("seed: %llu\n", static_cast<unsigned long long>(tilecraft::test::seed()));
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
