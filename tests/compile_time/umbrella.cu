// Compile-time probe (.ci/compile-time): the umbrella header alone.
#include <tilecraft/tilecraft.cuh>
