# C++20 for CUDA sources that use tilecraft.
# CMake 3.25 does not know `cuda_std_20` for nvcc 13 (and CMAKE_CUDA_STANDARD 20 without
# _REQUIRED silently falls back to C++17 there), so where the compile feature is unknown the
# flag is passed directly. nvcc accepts a repeated identical -std.
function(tilecraft_require_cuda_cxx20 target)
  set(scope "${ARGV1}")
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CUDA" IN_LIST languages AND "cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
    target_compile_features(${target} INTERFACE cuda_std_20)
  elseif(scope STREQUAL "BUILD_INTERFACE")
    target_compile_options(${target} INTERFACE "$<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>>")
  else()
    target_compile_options(${target} INTERFACE "$<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>")
  endif()
endfunction()
