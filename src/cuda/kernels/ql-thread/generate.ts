/**
 * Batched syev for n <= 8 (plan.ts QL_THREAD_LIMIT): one thread per matrix, LAPACK's route in
 * registers, every loop over an element index unrolled at generation time (compile-time register
 * names: no local memory):
 * 1. Load the `uplo` triangle (the Jacobi designs' read). NaN or Inf: info n + 2, NaN outputs,
 *    nothing computed. Where the largest magnitude lies outside [LOW, HIGH], A is scaled by a power
 *    of two (exact) so that no square below overflows or loses an entry above eps ||A|| to
 *    underflow; the eigenvalues are scaled back.
 * 2. Householder tridiagonalization (dsytd2 'L'): for column k, H = I - h u u^T with
 *    u = x - beta e_1 (x the column below the diagonal, beta = -sign(x_1) ||x||) and
 *    h = 1 / (beta (beta - x_1)) = 1 / (||x||^2 + |x_1| ||x||): one square root and one division a
 *    column; A22 := H A22 H by p = h A22 u, q = p - (h / 2)(u^T p) u, A22 -= u q^T + q u^T on the
 *    upper triangle. u's tail stays where x was (as LAPACK keeps its reflectors in A).
 * 3. Vectors: Q = H_0 H_1 ... H_{n-3} formed backward (dorg2l's order: each H_k meets only the
 *    rows and columns k + 1 ... n - 1, whose first row and column are still the identity's).
 * 4. dsteqr's implicit QL with Wilkinson shifts on (d, e), the rotations applied to Q's columns as
 *    they are made: for each row l in turn (compile time), iterations while e_l is not negligible;
 *    m, the first row at or below l whose |e_m| <= eps (|d_m| + |d_m+1|) (or n - 1), found by a
 *    scan of selects; the block l..m starts at the split point l (every e above l is negligible),
 *    so its iteration converges it. m = l + 1: the 2 x 2 block's closed form (the Jacobi rotation);
 *    else one QL sweep from m - 1 down to l, each step predicated on its row lying in the block.
 *    Rotations by one reciprocal square root (scaled only where f^2 + g^2 leaves the safe range).
 *    maxit n iterations in all, then info n + 1 (the Jacobi designs' non-convergence info; the
 *    eigenvalues and vectors reached so far are written).
 * 5. Eigenvalues ascending (ties by index), eigenvector j in column j over A (the Jacobi designs'
 *    output; no sign convention). Values only: no Q, no rotations applied, A never written.
 *
 * Precision (`arithmetic`): float64 whatever the data's dtype (QL_THREAD_COMPUTE; float32 data is
 * widened on load and rounded once on store, as the CPU reference computes it), whose eigenvalues
 * lie within n eps ||A|| of the reference's; or, for float32 data, float32 arithmetic (half the
 * registers, the FP32 pipe at twice the FP64 rate), backward stable like the Jacobi designs' float32
 * arithmetic and held to their bound (eigenvalues within 30 n eps ||A|| of the reference's; host
 * emulation: 2.9 n eps ||A|| at most over 300 matrices of each kind, past the float64 arithmetic's
 * n eps ||A||; residual and orthogonality within 3 n eps as in float64). What float32 arithmetic changes
 * beyond the type: the constants of its range (scaling window, safe rotation range, BIGZ), a
 * Newton step on the reciprocal square root of the rotations (rsqrtf's 2 ulp could bias every
 * rotation's norm the same way, and V's columns pass through ~2 rotations per QL iteration: biased
 * so in host emulation, ||V^T V - I|| reached 23.5 n eps at n = 8 without the step), and a
 * column whose norm lies below eps^(3/2) max |a_ij| skips its reflector (h = 0, e_k its first
 * entry: a perturbation far below eps ||A||), as beside a much larger A the reflector's h u^T p
 * would overflow float32's range.
 * Normwise accuracy only: the small eigenvalues of graded matrices are not found to high relative
 * accuracy (the Jacobi designs' property; docs/eigen.md).
 */
import type { DType } from '../../../core/dtype.js';
import { byPrecision, cudaLiteral, cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { cType, mathHelpers, precisionLetter, precisionPrelude } from '../common/precision.js';
import { TANGENT } from '../common/rotation.js';
import { stagedConstants, stagedFrame, stagedSharedBytes, stagedSlots, type SpanCopy } from '../common/span-stage.js';
import type { QlThreadParams } from './params.js';

/** The arithmetic's type by default whatever the data's (float32 data widened on load and rounded once on store). */
export const QL_THREAD_COMPUTE: DType = 'float64';

/** Threads (matrices) per block. */
export const QL_THREAD_BLOCK = 128;

/** `text` with every line two spaces further in (the blocks inside the kernel's `if (!failed)`). */
const indent = (text: string): string => text.split('\n').map((line) => `  ${line}`).join('\n');

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);

/** The register of the symmetric matrix's element (i, j): its upper triangle a<min><max>. */
const sym = (i: number, j: number): string => `a${Math.min(i, j)}${Math.max(i, j)}`;

/** Entry i (k + 1 <= i < n) of reflector k's u: u<k> its first, A's column k below the subdiagonal the rest. */
const reflector = (k: number, i: number): string => (i === k + 1 ? `u${k}` : sym(i, k));

/** `terms` summed left to right by fused multiply-adds: [x, y] pairs. */
function dot(terms: readonly (readonly [string, string])[]): string {
  return terms.reduce((acc, [x, y]) => (acc === '' ? `${x} * ${y}` : `fmaReal(${x}, ${y}, ${acc})`), '');
}

/** Whether `p` computes in float32 arithmetic (float32 data only: the plan refuses a narrower arithmetic). */
const narrow = (p: QlThreadParams): boolean => dtypeInfo(p.arithmetic).bytes < dtypeInfo(QL_THREAD_COMPUTE).bytes;

export function qlThreadEntry(p: QlThreadParams): string {
  const arithmetic = narrow(p) ? `_f${8 * dtypeInfo(p.arithmetic).bytes}` : '';
  const layout = p.staged ? `_g${p.denseA ? 'd' : 'e'}${p.denseW ? 'd' : 'e'}` : '';
  return `syev_qlthread_${precisionLetter(p.dtype)}_${kindTag(p.kind)}_n${p.n}_${p.uplo === 'lower' ? 'l' : 'u'}${p.vectors ? 'v' : 'n'}_i${p.maxit}${arithmetic}${layout}`;
}

/** Dynamic shared bytes of a block (0 unstaged; the slots hold the data's type). */
export const qlThreadSharedBytes = (p: Pick<QlThreadParams, 'dtype' | 'n' | 'staged'>): number => (p.staged ? stagedSharedBytes(QL_THREAD_BLOCK, p.dtype, p.n) : 0);

/** The reciprocal square root of the rotations: float64's rsqrt (1 ulp), float32's rsqrtf (2 ulp) with one Newton step. */
function rsqrtHelper(arithmetic: DType): string {
  const rsqrt = cudaMath(arithmetic, 'rsqrt');
  return byPrecision(arithmetic, {
    double: `static __device__ __forceinline__ real rsqrtReal(real x) { return ${rsqrt}(x); }`,
    single: `// rsqrtf and one Newton step y (1 + (1 - x y^2) / 2): rsqrtf's error is not left to bias every rotation's norm.
static __device__ __forceinline__ real rsqrtReal(real x) {
  const real y = ${rsqrt}(x);
  return fmaReal(real(0.5) * y, fmaReal(-x * y, y, real(1)), y);
}`,
  });
}

/** Constants and helpers of the kernel in `arithmetic`. */
function constants(arithmetic: DType): string {
  const { cuda } = dtypeInfo(arithmetic);
  const literal = (double: string, single: string): string => cudaLiteral(arithmetic, byPrecision(arithmetic, { double, single }));
  return `constexpr real EPS = ${cuda.eps};
constexpr real MAXR = ${cuda.max};
constexpr real BIGZ = ${literal('1e150', '1e18')};
// A is scaled where max |a_ij| lies outside [LOW, HIGH]: (eps LOW)^2 stays normal, (n HIGH)^2 far from overflow.
constexpr real LOW = ${literal('1e-120', '1e-6')};
constexpr real HIGH = ${literal('1e120', '1e16')};
// f^2 + g^2 of a rotation in [SAFE_LO, SAFE_HI]: neither square lost to underflow beyond eps, none overflowed.
constexpr real SAFE_LO = ${literal('1e-300', '1e-30')};
constexpr real SAFE_HI = ${literal('1e300', '1e36')};
${rsqrtHelper(arithmetic)}
static __device__ __forceinline__ real nanReal() { return ${cuda.nan}; }
${TANGENT}
// c, s, r with c f + s g = r, c g - s f = 0, c^2 + s^2 = 1 (dlartg's roles).
static __device__ __forceinline__ void givens(real f, real g, real& c, real& s, real& r) {
  const real q = fmaReal(f, f, g * g);
  if (q >= SAFE_LO && q <= SAFE_HI) {
    const real t = rsqrtReal(q);
    c = f * t; s = g * t; r = q * t;
  } else if (g == real(0)) {
    c = real(1); s = real(0); r = f;
  } else {
    const real af = absReal(f), ag = absReal(g);
    const real big = af > ag ? af : ag;
    const real fs = f / big, gs = g / big;
    const real qs = fmaReal(fs, fs, gs * gs);
    const real t = rsqrtReal(qs);
    c = fs * t; s = gs * t; r = big * (qs * t);
  }
}
// Where eigenvalue j goes in ascending order (ties by index); NaN-free d only.
static __device__ __forceinline__ int rankOf(const real (&d)[N], int j) {
  int rank = 0;
  #pragma unroll
  for (int k = 0; k < N; ++k) rank += (d[k] < d[j] || (d[k] == d[j] && k < j)) ? 1 : 0;
  return rank;
}`;
}

/**
 * Step 2 for column k: the reflector, d_k, e_k and A22 := H A22 H. `flat`: the condition under
 * which the column keeps its entries (no reflector: h = 0, e_k its first entry).
 */
function householder(n: number, k: number, flat: string): string {
  const rows = range(k + 1, n);
  const tail = range(k + 2, n);
  const lines = [
    `  // Column ${k}.`,
    `  {`,
    `    const real alpha = ${sym(k + 1, k)};`,
    `    const real sigma = ${dot(tail.map((i) => [sym(i, k), sym(i, k)] as const))};`,
    `    const real xx = fmaReal(alpha, alpha, sigma);`,
    `    const real norm = sqrtReal(xx);`,
    `    const real beta = alpha >= real(0) ? -norm : norm;`,
    `    u${k} = alpha - beta;`,
    `    h${k} = ${flat} ? real(0) : real(1) / fmaReal(absReal(alpha), norm, xx);`,
    `    d${k} = ${sym(k, k)};`,
    `    e${k} = ${flat} ? alpha : beta;`,
    ...rows.map((i) => `    const real p${i} = h${k} * (${dot(rows.map((j) => [sym(i, j), reflector(k, j)] as const))});`),
    `    const real half = real(0.5) * h${k} * (${dot(rows.map((i) => [reflector(k, i), `p${i}`] as const))});`,
    ...rows.map((i) => `    const real q${i} = fmaReal(-half, ${reflector(k, i)}, p${i});`),
    ...rows.flatMap((i) => rows.filter((j) => j >= i).map((j) =>
      `    ${sym(i, j)} = fmaReal(-${reflector(k, i)}, q${j}, fmaReal(-q${i}, ${reflector(k, j)}, ${sym(i, j)}));`)),
    `  }`,
  ];
  return lines.join('\n');
}

/** Step 3 for reflector k: Q := H_k Q on rows and columns k + 1 ... n - 1 (row and column k + 1 still e_{k+1}). */
function formQ(n: number, k: number): string {
  const dense = range(k + 2, n);
  const lines = [
    `  {`,
    ...dense.map((c) => `    const real y${c} = h${k} * (${dot(dense.map((i) => [reflector(k, i), `z${i}${c}`] as const))});`),
    `    const real hu = h${k} * u${k};`,
    `    z${k + 1}${k + 1} = fmaReal(-hu, u${k}, real(1));`,
    ...dense.map((i) => `    z${i}${k + 1} = -hu * ${reflector(k, i)};`),
    ...dense.map((c) => `    z${k + 1}${c} = -u${k} * y${c};`),
    ...dense.flatMap((i) => dense.map((c) => `    z${i}${c} = fmaReal(-${reflector(k, i)}, y${c}, z${i}${c});`)),
    `  }`,
  ];
  return lines.join('\n');
}

/** [z_p z_q] := [c z_p - s z_q, s z_p + c z_q] on every row (the rotation's effect on the columns p, q). */
function rotateColumns(n: number, p: number, q: number, c: string, s: string, by: string): string[] {
  return range(0, n).map((r) => `${by}{ const real zp = z${r}${p}, zq = z${r}${q}; z${r}${p} = ${c} * zp - ${s} * zq; z${r}${q} = fmaReal(${s}, zp, ${c} * zq); }`);
}

/** Step 4 for row l: iterations while e_l is not negligible. */
function qlRow(n: number, l: number, vectors: boolean): string {
  const below = range(l, n - 1).reverse();   // n - 2 down to l
  const lines = [
    `  // Row ${l}.`,
    `  while (converged) {`,
    `    int m = N - 1;`,
    ...below.map((i) => `    if (absReal(e${i}) <= EPS * (absReal(d${i}) + absReal(d${i + 1}))) m = ${i};`),
    `    if (m == ${l}) break;`,
    `    if (iterations == MAXIT) { converged = false; break; }`,
    `    ++iterations;`,
  ];
  // The 2 x 2 block l, l + 1: its exact rotation.
  const closed = [
    `      const real t = tangent((d${l + 1} - d${l}) / (real(2) * e${l}));`,
    `      const real c = rsqrtReal(fmaReal(t, t, real(1))), s = t * c;`,
    `      d${l} = fmaReal(-t, e${l}, d${l}); d${l + 1} = fmaReal(t, e${l}, d${l + 1}); e${l} = real(0);`,
    ...(vectors ? rotateColumns(n, l, l + 1, 'c', 's', '      ') : []),
  ];
  if (l === n - 2) {
    lines.push(...closed, `  }`);
    return lines.join('\n');
  }
  // One implicit QL sweep over l..m (m >= l + 2): dsteqr's inner loop, rows i >= m idle.
  const dm = range(l + 2, n - 1).reverse().reduce((acc, j) => `m == ${j} ? d${j} : ${acc}`, `d${n - 1}`);
  const sweep = [
    `      real g = (${dm}) - d${l} + e${l} * tangent((d${l + 1} - d${l}) / (real(2) * e${l}));`,
    `      real c = real(1), s = real(1), p = real(0);`,
    ...below.flatMap((i) => [
      `      if (${i} < m) {`,
      `        const real f = s * e${i}, b = c * e${i};`,
      `        real r;`,
      `        givens(g, f, c, s, r);`,
      ...(i + 1 < n - 1 ? [`        if (${i + 1} < m) e${i + 1} = r;`] : []),
      `        g = d${i + 1} - p;`,
      `        r = fmaReal(d${i} - g, s, real(2) * c * b);`,
      `        p = s * r;`,
      `        d${i + 1} = g + p;`,
      `        g = fmaReal(c, r, -b);`,
      // dlasr 'R', 'V', 'B' with (c, -s): z_i := c z_i - s z_i+1, z_i+1 := s z_i + c z_i+1.
      ...(vectors ? rotateColumns(n, i, i + 1, 'c', 's', '        ') : []),
      `      }`,
    ]),
    `      d${l} -= p;`,
    `      e${l} = g;`,
  ];
  lines.push(`    if (m == ${l + 1}) {`, ...closed, `    } else {`, ...sweep, `    }`, `  }`);
  return lines.join('\n');
}

export function qlThreadSource(p: QlThreadParams): KernelSource {
  const { dtype, n, uplo, vectors, kind, maxit, arithmetic } = p;
  const entry = qlThreadEntry(p);
  const idx = range(0, n);
  const upper = idx.flatMap((i) => idx.filter((j) => j >= i).map((j) => [i, j] as const));
  const { staged } = p;
  const s = stagedSlots(dtype, n);
  // Element (i, j) of A's storage: this thread's slot (staged) or global memory.
  const aAt = (i: number, j: number): string => (staged ? `sa[${i + j * n}]` : `am[${i} + ${j} * (long long)ldA]`);
  const copyA: SpanCopy = { operand: 'A', layout: { kind, dense: p.denseA }, dtype, rows: n, cols: n, shared: 'sA', slot: s.a, element: 'io' };
  const copyW: SpanCopy = { operand: 'W', layout: { kind, dense: p.denseW }, dtype, rows: n, cols: 1, shared: 'sW', slot: s.w, element: 'io' };
  const load = ([i, j]: readonly [number, number]): string => `  real a${i}${j} = ${uplo === 'lower' ? aAt(j, i) : aAt(i, j)};`;
  const ldexp = cudaMath(arithmetic, 'ldexp');
  // float32 arithmetic: a column below eps^(3/2) max |a_ij| (after scaling) keeps its entries (the header).
  const flat = narrow(p) ? '(sigma == real(0) || xx <= tiny)' : 'sigma == real(0)';
  // The reduction, the QL iterations and the outputs of one matrix (`mat` its index in the group).
  const body = `${upper.map(load).join('\n')}
  const bool failed = !(${upper.map(([i, j]) => `absReal(a${i}${j}) <= MAXR`).join(' && ')});
  real ${idx.map((i) => `d${i} = a${i}${i}`).join(', ')};
${n > 1 ? `  real ${range(0, n - 1).map((i) => `e${i} = a${i}${i + 1}`).join(', ')};` : ''}
${vectors ? idx.map((i) => `  real ${idx.map((j) => `z${i}${j} = real(${i === j ? 1 : 0})`).join(', ')};`).join('\n') : ''}
  int exponent = 0;
  int iterations = 0;
  bool converged = true;
  if (!failed) {
    real amax = real(0);
${upper.map(([i, j]) => `    amax = absReal(a${i}${j}) > amax ? absReal(a${i}${j}) : amax;`).join('\n')}
    if (amax != real(0) && (amax < LOW || amax > HIGH)) {
      exponent = ${cudaMath(arithmetic, 'ilogb')}(amax);
${upper.map(([i, j]) => `      a${i}${j} = ${ldexp}(a${i}${j}, -exponent);`).join('\n')}
    }
${narrow(p) && n > 2 ? `    const real scaledMax = ${ldexp}(amax, -exponent), tiny = EPS * EPS * EPS * scaledMax * scaledMax;\n` : ''}${range(0, n - 2).length > 0 ? `    real ${range(0, n - 2).map((k) => `u${k}, h${k}`).join(', ')};` : ''}
${range(0, n - 2).map((k) => indent(householder(n, k, flat))).join('\n')}
${n > 1 ? `    d${n - 2} = a${n - 2}${n - 2}; d${n - 1} = a${n - 1}${n - 1}; e${n - 2} = a${n - 2}${n - 1};` : `    d0 = a00;`}
${vectors ? range(0, n - 2).reverse().map((k) => indent(formQ(n, k))).join('\n') : ''}
${range(0, n - 1).map((l) => indent(qlRow(n, l, vectors))).join('\n')}
    if (exponent != 0) {
${idx.map((i) => `      d${i} = ${ldexp}(d${i}, exponent);`).join('\n')}
    }
  }
  info[index ? index[mat] : mat] = failed ? N + 2 : (converged ? 0 : N + 1);
  // Ascending order by rank (ties by index); a failed matrix (NaN everywhere) in place.
  const real d[N] = { ${idx.map((i) => `d${i}`).join(', ')} };
  #pragma unroll
  for (int j = 0; j < N; ++j) {
    const int rank = failed ? j : rankOf(d, j);
    w[rank] = failed ? nanReal() : d[j];
  }
${vectors ? `  const real zz[N][N] = { ${idx.map((i) => `{ ${idx.map((j) => `z${i}${j}`).join(', ')} }`).join(', ')} };
  #pragma unroll
  for (int j = 0; j < N; ++j) {
    const int rank = failed ? j : rankOf(d, j);
    #pragma unroll
    for (int i = 0; i < N; ++i) ${staged ? 'sa[i + rank * N]' : 'am[i + (long long)rank * ldA]'} = failed ? nanReal() : zz[i][j];
  }` : ''}`;
  const kernelBody = staged
    ? stagedFrame({ element: 'io', a: copyA, w: copyW, writesA: vectors, body })
    : `  const long long mat = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (mat >= count) return;
  io* am = ${matrixPointer('A', kind, 'mat')};
  io* w = ${matrixPointer('W', kind, 'mat')};
${body}`;
  const source = `${precisionPrelude(arithmetic)}
${mathHelpers(arithmetic)}
// The data's type.
typedef ${cType(dtype)} io;
constexpr int N = ${n};
constexpr int MAXIT = ${maxit} * N;
${staged ? stagedConstants(QL_THREAD_BLOCK, s.a, s.w) : ''}
${constants(arithmetic)}

extern "C" __global__ void __launch_bounds__(${QL_THREAD_BLOCK}) ${entry}(
    ${operandParameters('A', kind, true, 'io')},
    ${operandParameters('W', kind, true, 'io')},
    int* __restrict__ info, const int* __restrict__ index, int count) {
${kernelBody}
}
`;
  return { name: `${entry}.cu`, source, entry };
}
