# cmake -DCOMPILER=nvcc -DSOURCE=file.cu -DINCLUDE=dir -DOBJECT=out.o -DREGEX=... [-DMAX_ERRORS=1]
#   [-DMAX_WARNINGS=0] [-DHOST_INCLUDES=dir|dir] -P TilecraftCompileFail.cmake
# (A SOURCE ending in .cpp is compiled by COMPILER as a host compiler, with HOST_INCLUDES.)
# A must-fail compile test: compiling SOURCE must fail, its first error (with the notes that
# follow it) must match REGEX (the rule's own message), and at most MAX_ERRORS errors and MAX_WARNINGS warnings may be reported
# in all, so a rule that breaks is not buried under the errors (or the division-by-zero
# warnings) of the code behind it.
if(NOT DEFINED MAX_ERRORS)
  set(MAX_ERRORS 1)
endif()
if(NOT DEFINED MAX_WARNINGS)
  set(MAX_WARNINGS 0)
endif()
if(SOURCE MATCHES "\\.cpp$")
  # A host compiler's unit: HOST_INCLUDES ('|'-separated) holds the CUDA toolkit's headers.
  set(flags -std=c++20 -I "${INCLUDE}")
  string(REPLACE "|" ";" host_includes "${HOST_INCLUDES}")
  foreach(dir IN LISTS host_includes)
    list(APPEND flags -isystem "${dir}")
  endforeach()
else()
  set(flags -std=c++20 -arch=sm_90 -I "${INCLUDE}")
endif()
execute_process(
  COMMAND "${COMPILER}" ${flags} -c "${SOURCE}" -o "${OBJECT}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")
string(REPLACE ";" "," log "${log}")  # a CMake list would split messages at semicolons
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it breaks a rule and must not")
endif()
string(REGEX MATCHALL "[^\n]*error[^\n]*" errors "${log}")
list(FILTER errors EXCLUDE REGEX "errors? detected in the compilation")
list(LENGTH errors count)
if(count EQUAL 0)
  message(FATAL_ERROR "${SOURCE} failed without an error message:\n${log}")
endif()
list(GET errors 0 first)
# The first error with the notes after it (up to the next error): a rule on a constexpr
# function's argument (bank::wavefronts' access_bytes) fails the constant evaluation, and the
# compiler names the rule in the note that follows ("cannot call non-constexpr function
# ...access_bytes_must_be_1_2_4_8_or_16").
set(first_block "${first}")
string(FIND "${log}" "${first}" at)
if(at GREATER -1)
  string(SUBSTRING "${log}" ${at} -1 first_block)
  if(count GREATER 1)
    list(GET errors 1 second)
    string(FIND "${first_block}" "${second}" next)
    if(next GREATER 0)
      string(SUBSTRING "${first_block}" 0 ${next} first_block)
    endif()
  endif()
endif()
if(NOT first_block MATCHES "${REGEX}")
  message(FATAL_ERROR "the first error is not the rule's message (${REGEX}):\n${log}")
endif()
if(count GREATER MAX_ERRORS)
  message(FATAL_ERROR "${count} errors, more than ${MAX_ERRORS}: the rule's message should come (nearly) alone:\n${log}")
endif()
# nvcc: "file(line): warning #39-D: ...", the host compiler: "file:line:col: warning: ...".
string(REGEX MATCHALL "[^\n]*warning( #[0-9A-Za-z-]+)?:[^\n]*" warnings "${log}")
list(LENGTH warnings warning_count)
if(warning_count GREATER MAX_WARNINGS)
  message(FATAL_ERROR "${warning_count} warnings, more than ${MAX_WARNINGS}: the rule's message should come alone:\n${log}")
endif()
message(STATUS "fails as it must, with ${count} error(s): ${first}")
