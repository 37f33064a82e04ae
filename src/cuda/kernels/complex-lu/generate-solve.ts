/**
 * zgetrs for n <= 32: solve/generate-small.ts's register design over `real2` pairs. Thread r reads
 * what its sweeps need of the factor once: row r of L\U for op 'N' (L y = P b forward, U x = y
 * backward), column r for 'T' and 'C' (op(U) y = b forward, op(L) w = y backward, then x = P^T w),
 * conjugated as it is read for 'C'. The interchanges are one shuffle of the right-hand sides: each
 * lane works out from the pivots which row of B (or of w) becomes its own. info is set to 0.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter } from '../common/complex.js';
import { slotSetup } from '../common/warp-slots.js';
import type { ComplexGetrsParams } from './params.js';
import { COMPLEX_LAUNCH_BOUNDS, complexSlotPrelude, type ComplexSlotLayout } from './slots.js';
import { complexSweep, DIVIDE } from './sweep.js';
import { diagonalReciprocal } from '../common/diagonal-scale.js';

/** A lane per row (no reduction over them: any count), no shared buffers. */
export function complexGetrsLayout(p: ComplexGetrsParams): ComplexSlotLayout {
  return { dtype: p.dtype, rows: p.n, lanes: p.n, warps: p.warps, pairs: 1 };
}

export function complexGetrsSource(p: ComplexGetrsParams): KernelSource {
  const entry = `trs_${complexLetter(p.dtype)}_lu_${p.trans}_n${p.n}_r${p.rhs}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;
  const notrans = p.trans === 'N';
  const element = notrans ? 'a[r + (long long)j * ldA]' : 'a[j + (long long)r * ldA]';
  const read = (x: string): string => (p.trans === 'C' ? `conjReal2(${x})` : x);
  const source = `${complexSlotPrelude(complexGetrsLayout(p))}
constexpr int RB = ${p.rhs};
constexpr int SN = N;

extern "C" __global__ void ${COMPLEX_LAUNCH_BOUNDS} ${entry}(
    ${operandParameters('A', p.kindA, false, 'real2')},
    ${operandParameters('B', p.kindB, true, 'real2')},
    const int* __restrict__ ipiv, int pivotStride, int* __restrict__ info,
    const int* __restrict__ index, int count, int nrhs) {
${slotSetup()}
  const real2* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real2* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
  real2 rA[N];                                      // ${notrans ? 'row' : 'column'} r of L\\U${p.trans === 'C' ? ', conjugated' : ''}
#pragma unroll
  for (int j = 0; j < N; ++j) rA[j] = valid ? ${read(element)} : makeReal2(0, 0);
  const real2 diag = valid ? ${read('a[r + (long long)r * ldA]')} : makeReal2(1, 0);
  // 1 / U(r, r), and whether it is used (LAPACK's trsm divides: a subnormal diagonal's reciprocal overflows).
  ${diagonalReciprocal(p.dtype, true)}
  int src = r;                                      // ${notrans ? 'row of B that is row r of P B' : 'row of w that is row r of P^T w'}
  if (valid) {
    const int* pv = ipiv + id * (long long)pivotStride;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const int j = ${notrans ? 'N - 1 - i' : 'i'};
      const int q = pv[j];
      src = src == j ? q : (src == q ? j : src);
    }
  }
  if (valid && r == 0) info[id] = 0;
  for (int q0 = 0; q0 < nrhs; q0 += RB) {
    real2 x[RB], y[RB], w[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) {
      x[c] = (valid && q0 + c < nrhs) ? b[r + (long long)(q0 + c) * ldB] : makeReal2(0, 0);
      y[c] = makeReal2(0, 0); w[c] = makeReal2(0, 0);
    }
${notrans ? `#pragma unroll
    for (int c = 0; c < RB; ++c) x[c] = shflReal2(x[c], base + src);
` : ''}    ${complexSweep({ down: true, elem: 'rA[k]', lane: 'base + k', scale: notrans ? '' : DIVIDE, x: 'x', out: 'y', rowIs: 'r' })}
    ${complexSweep({ down: false, elem: 'rA[k]', lane: 'base + k', scale: notrans ? DIVIDE : '', x: 'y', out: 'w', rowIs: 'r' })}
${notrans ? '' : `#pragma unroll
    for (int c = 0; c < RB; ++c) w[c] = shflReal2(w[c], base + src);
`}    if (valid) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) b[r + (long long)(q0 + c) * ldB] = w[c];
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
