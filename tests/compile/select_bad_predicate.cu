#include <tilecraft/device/select.cuh>
struct NotAPredicate {};
int main() {
  float* p = nullptr;
  long long* count = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(
      tilecraft::select_if(nullptr, bytes, static_cast<const float*>(p), p, count, 1, NotAPredicate{}));
}
