// The LU family's host shims over cuda-host-warp.h (the shuffles, pivot keys and whole-warp reductions
// from a barrier per warp): the launch-bounds and shared-memory spellings and complex64's vector type.
// Included by zlu-host-harness.cpp and lu-solve-host-harness.cpp.
#pragma once
#include "cuda-host-warp.h"
using std::fma; using std::fabs; using std::hypot; using std::min; using std::max;
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };   // complex64's shared reads, two pairs a vector
