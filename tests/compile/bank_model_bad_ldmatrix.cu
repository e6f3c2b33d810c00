#include <tilecraft/memory/bank_model.cuh>
// An ldmatrix reads 1, 2 or 4 8 x 8 matrices: 3 is not one of its forms.
static_assert(tilecraft::bank::ldmatrix_wavefronts([](int lane) -> long long { return 16ll * lane; }, 3) == 3);
int main() { return 0; }
