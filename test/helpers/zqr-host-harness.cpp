// Runs one generated kernel of the complex QR family (src/cuda/kernels/zqr/; kernel.cu, entry ENTRY)
// on the CPU: one std::thread per CUDA thread, one block at a time. -DGEQRF / -DORGQR: the
// shared-memory kernel (dynamic shared memory a NaN-filled buffer; warp intrinsics through
// cuda-host-warp.h); -DWY: the compact WY kernel (static shared arrays as statics); -DORMQR: zunm2r
// (blockDim.y matrices per block, cuda-host-shim.h). -DPA: the operands in the pointer form (an
// array of host addresses into the buffer, one per matrix), else strided.
// stdin: gx by bx count len, then per operand (A, T[, C]) offset stride ld and, in the pointer
// form, count element offsets (complex elements); then per mode: GEQRF the index (count entries,
// or -1 for none) and info length; WY the element offsets of V and Y, strideW, r, ib; ORMQR r k nvec
// ldt shared; then 2 len numbers (the interleaved buffer). stdout: the buffer, then (GEQRF) info.
// -DGCHECK / -DGFINISH / -DGMOVE: gels's check, finish and conjugate transpose (generate-gels.ts), each
// operand in its own form (-DP0 ... -DP3); stdin after the operands: GCHECK k nrhs indexed infoLen, the
// index, info; GFINISH rows nrhs edge and count states; GMOVE rows cols; stdout: the buffer, then
// (GCHECK) info and the states.
// Used by test/cuda/zqr-host-emulation.test.ts.
#if defined(ORMQR)
#include "cuda-host-shim.h"
#define __shared__ static
#undef __align__
#define __align__(n) __attribute__((aligned(n)))
#else
#include "cuda-host-warp.h"
#if defined(WY)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#else
alignas(16) unsigned char smemRaw[256 * 1024];
#define __shared__
#define __align__(x)
#endif
#endif
using std::fma; using std::sqrt; using std::fabs; using std::hypot; using std::min; using std::max;
#include "kernel.cu"   // from -I<dir>
#include "complex-host-operand.h"
int main() {
  long long gx, by, bx, count, len;
  if (scanf("%lld %lld %lld %lld %lld", &gx, &by, &bx, &count, &len) != 5) return 2;
  std::vector<real2> buf(len + 1);
  real2* base = buf.data();
#if defined(GCHECK) || defined(GFINISH) || defined(GMOVE)
  // gels's own kernels: each operand in its own form (-DP0 ... -DP3: pointer form).
  Operand o[4];
  const bool pointerForm[4] = {
#ifdef P0
    true,
#else
    false,
#endif
#ifdef P1
    true,
#else
    false,
#endif
#ifdef P2
    true,
#else
    false,
#endif
#ifdef P3
    true,
#else
    false,
#endif
  };
#ifdef GCHECK
  const int operands = 4;
#else
  const int operands = 2;
#endif
  for (int i = 0; i < operands; ++i) if (!readOperand(o[i], count, pointerForm[i], base)) return 2;
#ifdef P0
#define ARG0 o[0].ptrs.data()
#else
#define ARG0 base
#endif
#ifdef P1
#define ARG1 o[1].ptrs.data()
#else
#define ARG1 base
#endif
#ifdef P2
#define ARG2 o[2].ptrs.data()
#else
#define ARG2 base
#endif
#ifdef P3
#define ARG3 o[3].ptrs.data()
#else
#define ARG3 base
#endif
#define OPND(i, X) X, o[i].off, o[i].stride, o[i].ld
  blockDim.x = bx; gridDim.x = gx;
#if defined(GCHECK)
  long long k, nrhs, indexed, infoLen;
  if (scanf("%lld %lld %lld %lld", &k, &nrhs, &indexed, &infoLen) != 4) return 2;
  std::vector<int> index(count + 1), info(infoLen + 1), status(count + 1, -99);
  if (indexed) for (long long q = 0; q < count; ++q) if (scanf("%d", &index[q]) != 1) return 2;
  for (long long q = 0; q < infoLen; ++q) if (scanf("%d", &info[q]) != 1) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] { ENTRY(OPND(0, ARG0), OPND(1, ARG1), OPND(2, ARG2), OPND(3, ARG3), info.data(), indexed ? index.data() : nullptr, (int)count, status.data(), (int)k, (int)nrhs); });
  printPairs(buf.data(), len);
  for (long long q = 0; q < infoLen; ++q) printf("%d\n", info[q]);
  for (long long q = 0; q < count; ++q) printf("%d\n", status[q]);
#elif defined(GFINISH)
  long long rows, nrhs, edge;
  if (scanf("%lld %lld %lld", &rows, &nrhs, &edge) != 3) return 2;
  std::vector<int> status(count + 1);
  for (long long q = 0; q < count; ++q) if (scanf("%d", &status[q]) != 1) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] { ENTRY(OPND(0, ARG0), OPND(1, ARG1), status.data(), (int)count, (int)rows, (int)nrhs, (int)edge); });
  printPairs(buf.data(), len);
#else
  long long rows, cols;
  if (scanf("%lld %lld", &rows, &cols) != 2) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] { ENTRY(OPND(0, ARG0), OPND(1, ARG1), (int)count, (int)rows, (int)cols); });
  printPairs(buf.data(), len);
#endif
  (void)by;
  return 0;
#else
  Operand a, t, c;
  if (!readOperand(a, count, POINTER_A, base)) return 2;
  if (!readOperand(t, count, POINTER_A, base)) return 2;
#ifdef PA
#define ARG_TT t.ptrs.data()
#define ARG_CC c.ptrs.data()
#else
#define ARG_TT base
#define ARG_CC base
#endif
#if defined(ORMQR)
  if (!readOperand(c, count, POINTER_A, base)) return 2;
  long long r, k, nvec, ldt, shared;
  if (scanf("%lld %lld %lld %lld %lld", &r, &k, &nvec, &ldt, &shared) != 5) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  run_grid(gx, 1, bx, by, 1, shared, [&] {
    ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_TT, t.off, t.stride, t.ld, ARG_CC, c.off, c.stride, c.ld, (int)count, (int)r, (int)k, (int)nvec, (int)ldt);
  });
  printPairs(buf.data(), len);
#elif defined(WY)
  long long ov, oy, strideW, r, ib;
  if (scanf("%lld %lld %lld %lld %lld", &ov, &oy, &strideW, &r, &ib) != 5) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  blockDim.x = bx; gridDim.x = gx;
  for (unsigned x = 0; x < gx; ++x)
    launch_block(x, 0, bx, [&] { ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_TT, t.off, t.stride, t.ld, base + ov, base + oy, strideW, (int)count, (int)r, (int)ib); });
  printPairs(buf.data(), len);
#else
  long long indexed, infoLen;
  if (scanf("%lld %lld", &indexed, &infoLen) != 2) return 2;
  std::vector<int> index(count + 1);
  if (indexed) for (long long q = 0; q < count; ++q) if (scanf("%d", &index[q]) != 1) return 2;
  std::vector<int> info(infoLen + 1, -99);
  for (long long q = 0; q < infoLen; ++q) if (scanf("%d", &info[q]) != 1) return 2;
  if (!readPairs(buf.data(), len)) return 3;
  blockDim.x = bx; gridDim.x = gx;
  for (unsigned x = 0; x < gx; ++x) {
    memset(smemRaw, 0xff, sizeof(smemRaw));
    launch_block(x, 0, bx, [&] {
#ifdef GEQRF
      ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_TT, t.off, t.stride, t.ld, info.data(), indexed ? index.data() : nullptr, (int)count);
#else
      ENTRY(ARG_A, a.off, a.stride, a.ld, ARG_TT, t.off, t.stride, t.ld, indexed ? index.data() : nullptr, (int)count);
#endif
    });
  }
  printPairs(buf.data(), len);
  for (long long q = 0; q < infoLen; ++q) printf("%d\n", info[q]);
#endif
  return 0;
#endif
}
