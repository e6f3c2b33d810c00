// A cuBLAS call's status checked, for the measurement programs in this folder (not part of the
// build): a failed call ends the program with its line, rather than timing or comparing garbage.
#pragma once

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

#define CKB(x)                                                                \
  do {                                                                        \
    cublasStatus_t s_ = (x);                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                        \
      std::printf("cuBLAS error %d at line %d: %s\n", int(s_), __LINE__, #x); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)
