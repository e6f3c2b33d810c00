//! \file memory/carve.cuh
//! Typed carving of one dynamic shared-memory buffer into several tiles and temp storages,
//! replacing hand-written pointer arithmetic such as `float* tile_b = shared + M * M;`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../config.cuh"
#include "../util/math.cuh"

namespace tilecraft {

namespace detail {
template <std::size_t I, class T, class... Ts>
struct CarveTypeAt {
  using type = typename CarveTypeAt<I - 1, Ts...>::type;
};
template <class T, class... Ts>
struct CarveTypeAt<0, T, Ts...> {
  using type = T;
};
}  // namespace detail

template <class... Ts>
class CarvedObjects;

//! Places objects of types Ts... one after another in a shared-memory buffer, each at an offset
//! that is a multiple of max(alignof(T), 16) bytes (16 keeps every tile ready for 16-byte vector
//! and cp.async accesses): the objects are that aligned when the buffer is aligned to
//! `alignment`, the largest of those (16 unless a type asks for more, e.g. a TMA destination of
//! alignof 1024). `bytes` is the dynamic shared memory to launch with; `offset(i)` where object
//! i starts. All types must be trivial (tiles and temp storages are), since carving creates no
//! objects and runs no constructors.
//! \code
//! using Smem = tilecraft::SharedCarve<TileA, TileB>;          // host: Smem::bytes
//! extern __shared__ __align__(16) unsigned char smem[];
//! auto [a, b] = Smem::carve(smem);                            // TileA&, TileB&
//! \endcode
template <class... Ts>
struct SharedCarve {
  static_assert(sizeof...(Ts) >= 1, "SharedCarve: name at least one type to place");
  static_assert((std::is_trivially_default_constructible_v<Ts> && ...) && (std::is_trivially_destructible_v<Ts> && ...),
                "SharedCarve: every type must be trivially default constructible and destructible "
                "(tiles and temp storage are), because carving runs no constructors");

  //! Alignment of every placed object.
  template <class T>
  static constexpr std::size_t align_of = alignof(T) > std::size_t{16} ? alignof(T) : std::size_t{16};
  //! Alignment required of the buffer: the largest align_of.
  static constexpr std::size_t alignment = [] {
    std::size_t a = 16;
    ((a = align_of<Ts> > a ? align_of<Ts> : a), ...);
    return a;
  }();

 private:
  struct Plan {
    std::size_t offsets[sizeof...(Ts)];
    std::size_t bytes;
  };
  TILECRAFT_HOST_DEVICE static constexpr Plan plan() {
    Plan p{};
    std::size_t at = 0;
    std::size_t i = 0;
    ((at = round_up(at, align_of<Ts>), p.offsets[i++] = at, at += sizeof(Ts)), ...);
    p.bytes = at;
    return p;
  }

 public:
  //! Byte offset of each object from the buffer start.
  TILECRAFT_HOST_DEVICE static constexpr std::size_t offset(std::size_t i) { return plan().offsets[i]; }
  //! Total dynamic shared memory, in bytes, to pass as the launch's third argument.
  static constexpr std::size_t bytes = plan().bytes;

#if defined(__CUDACC__)
  //! The objects placed in `base` (a shared buffer of at least `bytes` bytes aligned to
  //! `alignment`: `extern __shared__ __align__(16)` where no type asks for more than 16), to
  //! unpack with a structured binding. Each call returns the same addresses; it costs only
  //! pointer arithmetic.
  TILECRAFT_DEVICE static CarvedObjects<Ts...> carve(void* base) {
    TILECRAFT_ASSERT(reinterpret_cast<std::uintptr_t>(base) % alignment == 0 &&
                     "SharedCarve::carve: the buffer must be aligned to SharedCarve::alignment");
    return CarvedObjects<Ts...>(static_cast<unsigned char*>(base));
  }
#endif
};

//! What SharedCarve<Ts...>::carve returns: a tuple-like view of the placed objects.
//! `auto [a, b] = ...` binds references (`Ts&...`); `objects.get<I>()` names one.
template <class... Ts>
class CarvedObjects {
 public:
  //! The object of type Ts...[I] in the buffer.
  template <std::size_t I>
  requires(I < sizeof...(Ts)) TILECRAFT_HOST_DEVICE typename detail::CarveTypeAt<I, Ts...>::type& get() const {
    return *reinterpret_cast<typename detail::CarveTypeAt<I, Ts...>::type*>(base_ + SharedCarve<Ts...>::offset(I));
  }

 private:
  friend struct SharedCarve<Ts...>;
  TILECRAFT_HOST_DEVICE explicit CarvedObjects(unsigned char* base) : base_(base) {}
  unsigned char* base_;
};

}  // namespace tilecraft

// The tuple protocol, so that structured bindings unpack CarvedObjects.
//! \cond SPECIALIZATIONS
template <class... Ts>
struct std::tuple_size<tilecraft::CarvedObjects<Ts...>> : std::integral_constant<std::size_t, sizeof...(Ts)> {};
template <std::size_t I, class... Ts>
struct std::tuple_element<I, tilecraft::CarvedObjects<Ts...>> {
  using type = typename tilecraft::detail::CarveTypeAt<I, Ts...>::type&;
};
//! \endcond
