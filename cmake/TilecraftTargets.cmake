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

# The doctest mains, compiled once for every test (a doctest main takes seconds to compile);
# made by the first tilecraft_add_test, once doctest has been found.
function(tilecraft_test_mains)
  if(TARGET tilecraft_test_host_main)
    return()
  endif()
  add_library(tilecraft_test_host_main OBJECT "${PROJECT_SOURCE_DIR}/tests/support/host_main.cpp")
  add_library(tilecraft_test_device_main OBJECT "${PROJECT_SOURCE_DIR}/tests/support/device_main.cpp")
  foreach(main tilecraft_test_host_main tilecraft_test_device_main)
    target_include_directories(${main} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support")
    target_link_libraries(${main} PRIVATE tilecraft_dev_flags doctest::doctest)
  endforeach()
endfunction()

# TILECRAFT_COMPAT_TESTS (the GPU check): every device test also built as sm_75 PTX
# (<test>.sm75: JIT-compiled on a newer GPU, so every NV_IF_TARGET takes its pre-sm_80
# branch), with device assertions (<test>.assert), and, for a test whose kernels have a path
# for sm_90 and above (tilecraft_add_test's SM80), as sm_80 PTX (<test>.sm80: the sm_80 paths
# without Hopper's), in the same build, labelled "compat". (A test whose kernels have no sm_90
# path runs exactly its sm_80 code in the plain sm_90 build, so an sm_80 variant would repeat
# it: the flag is per test, not per header, since a header's Hopper path matters only to the
# tests that instantiate it.)
option(TILECRAFT_COMPAT_TESTS "Also build every device test as sm_75 PTX and with device assertions (and as sm_80 PTX where it has Hopper paths), and the synchronous-copy twins" OFF)
# TILECRAFT_COMPAT_SASS (empty by default): a real architecture, e.g. 90, for which the sm_75 and
# sm_80 variants are assembled at build time from their compute_75 / compute_80 PTX
# (-gencode arch=compute_75,code=sm_90): the same code paths (__CUDA_ARCH__ 750 or 800), the
# ptxas work done by the build's parallel jobs instead of by the driver's JIT when the test
# first loads (the GPU check's compat stage waited for that JIT after the build). Only for the
# GPU of that architecture: the executables carry no PTX.
set(TILECRAFT_COMPAT_SASS "" CACHE STRING "Assemble the sm_75 / sm_80 compat variants for this real architecture (e.g. 90) at build time instead of leaving PTX for the driver's JIT")

# tilecraft_wgmma_archs(<out> <archs>): <archs> with sm_90 as sm_90a (90 -> 90a, 90-real ->
# 90a-real, ...; "native" first becomes the GPUs found), so that code built for Hopper carries
# the warpgroup MMA (arch/wgmma.cuh: sm_90a only; sm_90a code runs on compute capability 9.0
# alone, which is what 90 meant). <out>_FOUND is TRUE when the result has 90a.
function(tilecraft_wgmma_archs out archs)
  if(archs STREQUAL "native" AND CMAKE_CUDA_ARCHITECTURES_NATIVE)
    set(archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  endif()
  set(result "")
  set(found FALSE)
  foreach(arch IN LISTS archs)
    if(arch MATCHES "^90(-real|-virtual)?$")
      string(REPLACE "90" "90a" arch "${arch}")
      set(found TRUE)
    endif()
    list(APPEND result "${arch}")
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
  set(${out}_FOUND ${found} PARENT_SCOPE)
endfunction()

# tilecraft_use_wgmma(<target>): builds <target> for the project's architectures with sm_90 as
# sm_90a (tilecraft_wgmma_archs).
function(tilecraft_use_wgmma target)
  tilecraft_wgmma_archs(archs "${CMAKE_CUDA_ARCHITECTURES}")
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${archs}")
endfunction()

# tilecraft_gemm_instances(): the OBJECT library tilecraft_gemm_instances, made once: the device
# GEMM's launchers on 16-bit (bf16, f16) and TF32 / TF32x3 operands, and on float and double
# with the default policy, with their kernels (TILECRAFT_GEMM_16BIT_INSTANCE,
# TILECRAFT_GEMM_TF32_INSTANCE, TILECRAFT_GEMM_INSTANCE), built for the project's architectures
# with sm_90 as sm_90a. test_gemm_16bit, test_gemm_tf32, test_host_gemm_from_cpp (whose g++ unit
# calls them), the benchmark binary and the gemm_ladder and errors_and_workspace examples link it
# and declare the instantiations extern: one compilation of these
# kernels instead of one per program (each is half a minute or more of compilation per
# architecture). (test_gemm instantiates the float and double ones itself, once per executable
# and variant, for each variant's architecture and macros.)
function(tilecraft_gemm_instances)
  if(TARGET tilecraft_gemm_instances)
    return()
  endif()
  # TILECRAFT_MERGED_UNITS (the ci preset, device code built for compile speed): one unit of
  # all five, whose fixed cost (headers for every architecture, the host compile: about 20 CPU s
  # of each unit's 25-28) is then paid once.
  if(TILECRAFT_MERGED_UNITS)
    set(units gemm_instances_merged)
  else()
    set(units gemm_instance_bf16 gemm_instance_f16 gemm_instance_tf32 gemm_instance_f32 gemm_instance_f64)
  endif()
  list(TRANSFORM units PREPEND "${PROJECT_SOURCE_DIR}/tests/support/")
  list(TRANSFORM units APPEND ".cu")
  add_library(tilecraft_gemm_instances OBJECT ${units})
  target_link_libraries(tilecraft_gemm_instances PRIVATE tilecraft_dev_flags)
  tilecraft_use_wgmma(tilecraft_gemm_instances)
endfunction()

# tilecraft_add_test(NAME <name> KIND host|device SOURCES <files...> [LIBRARIES <libs...>]
#                    [DEFINES <macros...>] [SKIP_ARCHS <archs...>] [NO_COMPAT] [WGMMA] [SM80]
#                    [COMPAT_SOURCES <files...>] [ASSERT_SOURCES <files...>] [REGISTER_AS <tests...>]
#                    [VARIANTS_ONLY])
#   host:   runs everywhere (layouts, bank model, argument validation).
#   device: needs a GPU; its main exits 77 without one, which ctest reports as skipped.
#   SKIP_ARCHS: build for the project's architectures less those named (75 drops 75, 75-real
#   and 75-virtual), where that leaves any: for a test whose code for those architectures would
#   repeat another test's. Its main then reports "skipped" on a GPU older than the oldest one
#   left, instead of failing for want of a kernel image. Such twins get no compat variants.
#   COMPAT_SOURCES: the compat variants' sources, where fewer files cover every path that
#   differs by architecture or assertion (default: SOURCES).
#   ASSERT_SOURCES: the .assert variant's sources, where fewer files than COMPAT_SOURCES meet
#   every assertion's code (default: COMPAT_SOURCES).
#   SM80: the test's kernels have paths for sm_90 and above (NV_PROVIDES_SM_90 and the like):
#   its compat variants include <name>.sm80, the sm_80 paths run on the same GPU.
#   WGMMA: the test (not its compat variants, which keep the other paths) builds sm_90 as sm_90a
#   and, where that applies, is compiled with TILECRAFT_TEST_EXPECT_WGMMA.
#   REGISTER_AS: the executable is a merged unit of these tests (tilecraft_add_merged_device_tests);
#   each is registered under its own name (plus the variant's suffix) and runs its own file's
#   cases. VARIANTS_ONLY: build the compat variants alone, not the plain executable.
function(tilecraft_add_test)
  cmake_parse_arguments(ARG "NO_COMPAT;WGMMA;SM80;VARIANTS_ONLY" "NAME;KIND"
                        "SOURCES;LIBRARIES;DEFINES;SKIP_ARCHS;COMPAT_SOURCES;ASSERT_SOURCES;REGISTER_AS" ${ARGN})
  if(NOT ARG_COMPAT_SOURCES)
    set(ARG_COMPAT_SOURCES ${ARG_SOURCES})
  endif()
  if(NOT ARG_ASSERT_SOURCES)
    set(ARG_ASSERT_SOURCES ${ARG_COMPAT_SOURCES})
  endif()
  tilecraft_test_mains()
  set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  set(min_sm 0)
  if(ARG_SKIP_ARCHS)
    foreach(arch IN LISTS ARG_SKIP_ARCHS)
      list(FILTER archs EXCLUDE REGEX "^${arch}(-real|-virtual)?$")
    endforeach()
    if(NOT archs)
      set(archs "${CMAKE_CUDA_ARCHITECTURES}")
    elseif(NOT archs STREQUAL CMAKE_CUDA_ARCHITECTURES)
      set(numbers "${archs}")
      list(TRANSFORM numbers REPLACE "^([0-9]+).*$" "\\1")
      list(SORT numbers COMPARE NATURAL)
      list(GET numbers 0 oldest)
      if(oldest MATCHES "^[0-9]+$")
        set(min_sm ${oldest})
      endif()
    endif()
    set(ARG_NO_COMPAT TRUE)
  endif()
  set(variants "${ARG_NAME}")
  if(ARG_KIND STREQUAL "device" AND TILECRAFT_COMPAT_TESTS AND NOT ARG_NO_COMPAT)
    list(APPEND variants ${ARG_NAME}.sm75 ${ARG_NAME}.assert)
    if(ARG_SM80)
      list(APPEND variants ${ARG_NAME}.sm80)
    endif()
  endif()
  if(ARG_VARIANTS_ONLY)
    list(REMOVE_ITEM variants ${ARG_NAME})
  endif()
  foreach(target IN LISTS variants)
    if(target STREQUAL ARG_NAME)
      add_executable(${target} ${ARG_SOURCES})
    elseif(target MATCHES "\\.assert$")
      add_executable(${target} ${ARG_ASSERT_SOURCES})
    else()
      add_executable(${target} ${ARG_COMPAT_SOURCES})
    endif()
    if(ARG_KIND STREQUAL "device")
      # The oldest architecture the test was built for: its main skips on older GPUs.
      set(min_sm_source "${CMAKE_CURRENT_BINARY_DIR}/min_sm/${target}.cpp")
      file(CONFIGURE OUTPUT "${min_sm_source}" CONTENT "int tilecraft_test_min_sm() { return ${min_sm}; }\n")
      target_sources(${target} PRIVATE "${min_sm_source}" $<TARGET_OBJECTS:tilecraft_test_device_main>)
    else()
      target_sources(${target} PRIVATE $<TARGET_OBJECTS:tilecraft_test_host_main>)
    endif()
    target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support")
    target_link_libraries(${target} PRIVATE tilecraft_dev_flags doctest::doctest ${ARG_LIBRARIES})
    target_compile_definitions(${target} PRIVATE ${ARG_DEFINES})
    set(labels "${ARG_KIND}")
    if(NOT target STREQUAL ARG_NAME)
      # The variants run light cases only (the GPU check's TILECRAFT_TEST_HUGE=0): their host
      # references need no optimization, and their build is a third shorter without it. (nvcc's
      # -O sets the host compiler's level only; the last one given wins, with a warning.)
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA,CXX>:-O0>)
    endif()
    if(target MATCHES "\\.sm(75|80)$")
      set(virtual_arch "${CMAKE_MATCH_1}")
      # Device code at -O1, as the .assert variant's (below): these variants exist for the older
      # architectures' code paths, which the optimization level does not choose. (A unit of
      # the scan tests as sm_75 code assembled for sm_90: 47 -> 37 s on the 2-core machine,
      # NVVM 19 -> 15 s, ptxas 11 -> 8 s; as PTX only, the driver's JIT assembles at its own
      # level.)
      target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcicc -O1>")
      if(TILECRAFT_COMPAT_SASS)
        set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES OFF)
        target_compile_options(
          ${target} PRIVATE
          "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-gencode arch=compute_${virtual_arch},code=sm_${TILECRAFT_COMPAT_SASS}>"
          "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xptxas -O1>")
      else()
        set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES ${virtual_arch}-virtual)
      endif()
      set(labels compat)
    elseif(target MATCHES "\\.assert$")
      target_compile_definitions(${target} PRIVATE TILECRAFT_ENABLE_DEVICE_ASSERTIONS)
      # Device code at -O1 (NVVM's and ptxas's) too: the assertions are what this variant checks,
      # not speed, and its units were the GPU check's longest background compiles (a unit of
      # the scan and select tests 75 -> 45 s, test_mma_tiled_bf16 31 -> 14 s on the 2-core machine; -Xcicc
      # passes an option to nvcc's NVVM front end, as -Xptxas does to ptxas).
      target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcicc -O1>"
                                               "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xptxas -O1>")
      set(labels compat)
    elseif(ARG_WGMMA)
      tilecraft_wgmma_archs(wgmma_archs "${archs}")
      set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${wgmma_archs}")
      if(wgmma_archs_FOUND)
        target_compile_definitions(${target} PRIVATE TILECRAFT_TEST_EXPECT_WGMMA)
      endif()
    elseif(NOT archs STREQUAL CMAKE_CUDA_ARCHITECTURES)
      set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${archs}")
    endif()
    if(ARG_REGISTER_AS)
      # test_merged_cub_levels.sm75 runs test_warp.sm75, test_block.sm75, ...
      string(REPLACE "${ARG_NAME}" "" suffix "${target}")
      foreach(test IN LISTS ARG_REGISTER_AS)
        add_test(NAME ${test}${suffix} COMMAND ${target} "--source-file=*/${test}.cu")
        set_tests_properties(${test}${suffix} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77)
      endforeach()
    else()
      add_test(NAME ${target} COMMAND ${target})
      set_tests_properties(${target} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77)
    endif()
  endforeach()
endfunction()

# tilecraft_add_merged_device_tests(NAME <target> TESTS <test>... [VARIANTS_ONLY]): device
# tests whose only source is tests/device/<test>.cu (no libraries, definitions or skipped
# architectures) compiled as one translation unit into one executable, <target>. Each test is
# still registered under its own name and runs the cases of its own file alone (doctest's
# --source-file filter on the path of the file that defines them). Why: with device code built
# for compile speed, what a unit costs is largely fixed (CUB's, Thrust's, doctest's and
# tilecraft's headers parsed for the host and for each architecture, and the host compile):
# fourteen tests in two units cost about 210 CPU s on a 2-core machine where fourteen units cost
# about 370. Used for the plain tests by the ci preset (TILECRAFT_MERGED_UNITS), and, with
# VARIANTS_ONLY, for the compat variants of the GPU check (TILECRAFT_COMPAT_TESTS), whose plain
# tests stay separate (the sanitizers run them one by one).
function(tilecraft_add_merged_device_tests)
  cmake_parse_arguments(ARG "VARIANTS_ONLY" "NAME" "TESTS" ${ARGN})
  set(includes "")
  foreach(test IN LISTS ARG_TESTS)
    string(APPEND includes "#include \"${CMAKE_CURRENT_SOURCE_DIR}/device/${test}.cu\"\n")
  endforeach()
  set(merged "${CMAKE_CURRENT_BINARY_DIR}/merged/${ARG_NAME}.cu")
  file(CONFIGURE OUTPUT "${merged}" CONTENT "// Generated (tilecraft_add_merged_device_tests): the device tests of one merged unit.\n@includes@"
       @ONLY)
  set(variants_only "")
  if(ARG_VARIANTS_ONLY)
    set(variants_only VARIANTS_ONLY)
  endif()
  tilecraft_add_test(NAME ${ARG_NAME} KIND device SOURCES "${merged}" REGISTER_AS ${ARG_TESTS} ${variants_only})
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
  # A .cpp file is a host compiler's (the rules of the host forms): the toolkit's headers, CCCL's
  # among them (CUDA 13 keeps those under include/cccl), on its include path.
  set(compiler "${CMAKE_CUDA_COMPILER}")
  set(host_includes "")
  if(file MATCHES "\\.cpp$")
    set(compiler "${CMAKE_CXX_COMPILER}")
    foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
      list(APPEND host_includes "${dir}")
      if(EXISTS "${dir}/cccl")
        list(APPEND host_includes "${dir}/cccl")
      endif()
    endforeach()
    string(REPLACE ";" "|" host_includes "${host_includes}")
  endif()
  add_test(NAME compile_fail.${stem}
    COMMAND "${CMAKE_COMMAND}" "-DCOMPILER=${compiler}" "-DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/${file}"
            "-DINCLUDE=${PROJECT_SOURCE_DIR}/include" "-DHOST_INCLUDES=${host_includes}"
            "-DOBJECT=${CMAKE_CURRENT_BINARY_DIR}/${stem}.o"
            "-DREGEX=${regex}" "-DMAX_ERRORS=${max_errors}" -P "${PROJECT_SOURCE_DIR}/cmake/TilecraftCompileFail.cmake")
  set_tests_properties(compile_fail.${stem} PROPERTIES LABELS "host;compile")
endfunction()
