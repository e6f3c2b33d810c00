#include <tilecraft/memory/bank_model.cuh>
// A warp access is 1, 2, 4, 8 or 16 bytes a lane: 12 is none of them.
static_assert(tilecraft::bank::wavefronts([](int lane) -> long long { return 12ll * lane; }, 12) == 3);
int main() { return 0; }
