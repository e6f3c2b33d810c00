# Helpers for tilecraft's own tests, examples and benchmarks (not installed).

# Warnings (as errors with TILECRAFT_WERROR), line info for the sanitizers, device lambdas.
add_library(tilecraft_dev_flags INTERFACE)
target_link_libraries(tilecraft_dev_flags INTERFACE tilecraft::tilecraft)
target_compile_options(tilecraft_dev_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
  $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda -lineinfo -Xcompiler=-Wall,-Wextra>
  $<$<AND:$<BOOL:${TILECRAFT_WERROR}>,$<COMPILE_LANGUAGE:CXX>>:-Werror>
  $<$<AND:$<BOOL:${TILECRAFT_WERROR}>,$<COMPILE_LANGUAGE:CUDA>>:--Werror=all-warnings -Xcompiler=-Werror>)
if(TILECRAFT_ENABLE_DEVICE_ASSERTIONS)
  target_compile_definitions(tilecraft_dev_flags INTERFACE TILECRAFT_ENABLE_DEVICE_ASSERTIONS)
endif()

# tilecraft_skip_architectures(<test> <arch>...): build the device test <test> for the
# project's CUDA architectures less those named (75 drops 75, 75-real and 75-virtual), where
# that leaves any: for a test whose code for those architectures would repeat another test's,
# byte for byte. Its main then reports "skipped" on a GPU older than the oldest one left
# (TILECRAFT_TEST_MIN_SM), instead of failing for want of a kernel image.
function(tilecraft_skip_architectures target)
  set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  foreach(arch IN LISTS ARGN)
    list(FILTER archs EXCLUDE REGEX "^${arch}(-real|-virtual)?$")
  endforeach()
  if(archs AND NOT archs STREQUAL CMAKE_CUDA_ARCHITECTURES)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${archs}")
    set(numbers "${archs}")
    list(TRANSFORM numbers REPLACE "^([0-9]+).*$" "\\1")
    list(SORT numbers COMPARE NATURAL)
    list(GET numbers 0 oldest)
    if(oldest MATCHES "^[0-9]+$")
      target_compile_definitions(${target} PRIVATE TILECRAFT_TEST_MIN_SM=${oldest})
    endif()
  endif()
endfunction()

# tilecraft_add_test(NAME <name> KIND host|device SOURCES <files...> [LIBRARIES <libs...>]
#                    [DEFINES <macros...>] [SKIP_ARCHS <archs...>])
#   host:   runs everywhere (layouts, bank model, argument validation).
#   device: needs a GPU; its main exits 77 without one, which ctest reports as skipped.
function(tilecraft_add_test)
  cmake_parse_arguments(ARG "" "NAME;KIND" "SOURCES;LIBRARIES;DEFINES;SKIP_ARCHS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  if(ARG_KIND STREQUAL "device")
    target_sources(${ARG_NAME} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support/device_main.cpp")
  else()
    target_sources(${ARG_NAME} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support/host_main.cpp")
  endif()
  target_include_directories(${ARG_NAME} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support")
  target_link_libraries(${ARG_NAME} PRIVATE tilecraft_dev_flags doctest::doctest ${ARG_LIBRARIES})
  target_compile_definitions(${ARG_NAME} PRIVATE ${ARG_DEFINES})
  if(ARG_SKIP_ARCHS)
    tilecraft_skip_architectures(${ARG_NAME} ${ARG_SKIP_ARCHS})
  endif()
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_KIND}" SKIP_RETURN_CODE 77)
endfunction()

# tilecraft_add_compile_fail_test(<file> <regex> [<max errors>]): compiling <file> must fail,
# its first error must match <regex> (the rule's static_assert message), and it may report at
# most <max errors> errors (default 1): the rule's message comes first and alone.
function(tilecraft_add_compile_fail_test file regex)
  get_filename_component(stem "${file}" NAME_WE)
  set(max_errors 1)
  if(ARGC GREATER 2)
    set(max_errors "${ARGV2}")
  endif()
  add_test(NAME compile_fail.${stem}
    COMMAND "${CMAKE_COMMAND}" "-DCOMPILER=${CMAKE_CUDA_COMPILER}" "-DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/${file}"
            "-DINCLUDE=${PROJECT_SOURCE_DIR}/include" "-DOBJECT=${CMAKE_CURRENT_BINARY_DIR}/${stem}.o"
            "-DREGEX=${regex}" "-DMAX_ERRORS=${max_errors}" -P "${PROJECT_SOURCE_DIR}/cmake/TilecraftCompileFail.cmake")
  set_tests_properties(compile_fail.${stem} PROPERTIES LABELS "host;compile")
endfunction()
