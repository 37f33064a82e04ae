/**
 * Random LAPACK-level calls for the contract properties (test/helpers/contracts.ts): a
 * `CallSpec` (what fast-check builds and shrinks: op, dtype, per-matrix dims, enums, scalars, one
 * layout per batch argument, a data seed) and `buildCall`, which places seeded, well-conditioned
 * data in fresh buffers full of sentinels and returns the arguments with a snapshot of every
 * buffer. Also which elements each op may write, for the untouched-element check.
 */
import fc from 'fast-check';
import { list, strided, variable, type Batch, type MatrixView } from '../../src/core/batch.js';
import { allocate, type ElementType, type FloatArray } from '../../src/core/dtype.js';
import { elementInfo } from '../../src/core/dtype-table.js';
import { OP_SPECS } from '../../src/core/op-specs.js';
import type { Order } from '../../src/core/enums.js';
import { Rng } from './random.js';

export type ContractOp =
  | 'gemm' | 'trsm' | 'trmm' | 'syrk' | 'herk' | 'potrf' | 'potrs' | 'posv' | 'getrf' | 'getrs' | 'gesv' | 'trtri' | 'lauum' | 'potri' | 'poti'
  | 'syev' | 'heev' | 'gesvd' | 'geqrf' | 'orgqr' | 'ormqr' | 'gels' | 'getri';
/** Every operation of the API (test/core checks this list against OP_NAMES). */
export const CONTRACT_OPS: readonly ContractOp[] = [
  'gemm', 'trsm', 'trmm', 'syrk', 'herk', 'potrf', 'potrs', 'posv', 'getrf', 'getrs', 'gesv', 'trtri', 'lauum', 'potri', 'poti',
  'syev', 'heev', 'gesvd', 'geqrf', 'orgqr', 'ormqr', 'gels', 'getri',
];
/** The operations that take complex batches (their op spec says so; syev's complex form is heev). */
export const COMPLEX_CONTRACT_OPS: readonly ContractOp[] = CONTRACT_OPS.filter((op) => OP_SPECS[op].complex === true);
/** The batch arguments any op takes, each with a layout of its own in a CallSpec. */
export const BATCH_NAMES = ['a', 'b', 'c', 'tau', 'w', 's', 'u', 'vt'] as const;

/** How one batch argument is laid out. */
export interface LayoutSpec {
  kind: 'strided' | 'list' | 'variable';
  order: Order;
  /** ld = inner dimension + ldPad. */
  ldPad: number;
  offset: number;
  /** strided: stride = footprint + gap; -1 means stride 0 (inputs only: one matrix broadcast). */
  gap: number;
  /** Elements after the last matrix. */
  tail: number;
}

/** m, n, k of one matrix of the call (their meaning per operation in `shapesOf`). */
export interface Dims { m: number; n: number; k: number }

export interface CallSpec {
  op: ContractOp;
  /** Real, or complex (complex128, complex64: pairs of floats, counts in complex elements). */
  dtype: ElementType;
  /** One entry per matrix (all equal unless every batch is variable). */
  dims: Dims[];
  uplo: 'lower' | 'upper';
  /** 'C' only on complex data (buildCall maps it where an op takes 'N' and one other). */
  transA: 'N' | 'T' | 'C';
  transB: 'N' | 'T' | 'C';
  side: 'left' | 'right';
  diag: 'unit' | 'nonunit';
  /** syev: jobz; gesvd: 'vectors' passes u and vt (jobu = jobvt = 'thin'), 'values' neither ('none'). */
  jobz: 'values' | 'vectors';
  alpha: number;
  beta: number;
  layouts: Record<string, LayoutSpec>;
  /** Pass info (and ipiv) arrays longer than needed, their tails checked untouched. */
  giveInts: boolean;
  seed: number;
}

/** Which batches an op takes, which it writes, and each one's logical (rows, cols) for given dims. */
interface ArgShape { name: string; output: boolean; rows: number; cols: number; data: DataKind }
type DataKind = 'general' | 'spd' | 'triangular' | 'lu' | 'diagonal-heavy' | 'reflectors' | 'tau';

function shapesOf(s: CallSpec, d: Dims): ArgShape[] {
  const { m, n, k } = d;
  switch (s.op) {
    case 'gemm':
      return [
        { name: 'a', output: false, ...(s.transA === 'N' ? { rows: m, cols: k } : { rows: k, cols: m }), data: 'general' },
        { name: 'b', output: false, ...(s.transB === 'N' ? { rows: k, cols: n } : { rows: n, cols: k }), data: 'general' },
        { name: 'c', output: true, rows: m, cols: n, data: 'general' },
      ];
    case 'trsm':
    case 'trmm': {
      const na = s.side === 'left' ? m : n;
      return [
        { name: 'a', output: false, rows: na, cols: na, data: 'triangular' },
        { name: 'b', output: true, rows: m, cols: n, data: 'general' },
      ];
    }
    case 'syrk':
    case 'herk':
      return [
        { name: 'a', output: false, ...(s.transA === 'N' ? { rows: n, cols: k } : { rows: k, cols: n }), data: 'general' },
        { name: 'c', output: true, rows: n, cols: n, data: 'general' },
      ];
    case 'potrf':
    case 'poti':
      return [{ name: 'a', output: true, rows: n, cols: n, data: 'spd' }];
    case 'trtri':
    case 'lauum':
    case 'potri':
      return [{ name: 'a', output: true, rows: n, cols: n, data: 'triangular' }];
    case 'getrf':
      return [{ name: 'a', output: true, rows: m, cols: n, data: 'diagonal-heavy' }];
    case 'potrs':
    case 'posv':
      return [
        { name: 'a', output: s.op === 'posv', rows: n, cols: n, data: s.op === 'posv' ? 'spd' : 'triangular' },
        { name: 'b', output: true, rows: n, cols: k, data: 'general' },
      ];
    case 'getri':
      // getrf's output: a unit lower L under a well-conditioned U, with pivots from buildCall.
      return [{ name: 'a', output: true, rows: n, cols: n, data: 'lu' }];
    case 'getrs':
    case 'gesv':
      return [
        { name: 'a', output: s.op === 'gesv', rows: n, cols: n, data: s.op === 'gesv' ? 'diagonal-heavy' : 'lu' },
        { name: 'b', output: true, rows: n, cols: k, data: 'general' },
      ];
    case 'syev':
    case 'heev':
      return [
        // 'a' is written only with vectors (undefined jobz: treated as written, so never broadcast).
        { name: 'a', output: s.jobz !== 'values', rows: n, cols: n, data: 'spd' },
        { name: 'w', output: true, rows: n, cols: 1, data: 'general' },
      ];
    case 'gesvd': {
      const q = Math.min(m, n);
      return [
        { name: 'a', output: false, rows: m, cols: n, data: 'diagonal-heavy' },
        { name: 's', output: true, rows: q, cols: 1, data: 'general' },
        ...(s.jobz === 'vectors' ? [
          { name: 'u', output: true, rows: m, cols: q, data: 'general' as const },
          { name: 'vt', output: true, rows: q, cols: n, data: 'general' as const },
        ] : []),
      ];
    }
    case 'geqrf':
      return [
        { name: 'a', output: true, rows: m, cols: n, data: 'diagonal-heavy' },
        { name: 'tau', output: true, rows: Math.min(m, n), cols: 1, data: 'general' },
      ];
    case 'orgqr': {
      // m >= n >= k: the first n columns of Q from k reflectors.
      const rows = Math.max(m, n), cols = Math.min(m, n);
      return [
        { name: 'a', output: true, rows, cols, data: 'reflectors' },
        { name: 'tau', output: false, rows: Math.min(k, cols), cols: 1, data: 'tau' },
      ];
    }
    case 'ormqr': {
      // C is m x n; Q of order r (m for side 'left', n for 'right') from k <= r reflectors in A (r x k).
      const r = s.side === 'left' ? m : n;
      const kk = Math.min(k, r);
      return [
        { name: 'a', output: false, rows: r, cols: kk, data: 'reflectors' },
        { name: 'tau', output: false, rows: kk, cols: 1, data: 'tau' },
        { name: 'c', output: true, rows: m, cols: n, data: 'general' },
      ];
    }
    case 'gels':
      return [
        { name: 'a', output: true, rows: m, cols: n, data: 'diagonal-heavy' },
        { name: 'b', output: true, rows: Math.max(m, n), cols: k, data: 'general' },
      ];
  }
}

export const HAS_INFO: ReadonlySet<ContractOp> = new Set(['potrf', 'potrs', 'posv', 'getrf', 'getrs', 'gesv', 'trtri', 'lauum', 'potri', 'poti', 'syev', 'heev', 'gesvd', 'geqrf', 'gels', 'getri']);
export const HAS_IPIV: ReadonlySet<ContractOp> = new Set(['getrf', 'getrs', 'gesv', 'getri']);
/** The ops that read pivots (getrf's, 0-based: p[j] in [j, n)) and may not write them. */
export const READS_IPIV: ReadonlySet<ContractOp> = new Set(['getrs', 'getri']);
/** The enum and scalar keys each op takes. */
export const OPTION_KEYS: Readonly<Record<ContractOp, readonly string[]>> = {
  gemm: ['transA', 'transB', 'alpha', 'beta'], trsm: ['side', 'uplo', 'transA', 'diag', 'alpha'], trmm: ['side', 'uplo', 'transA', 'diag', 'alpha'],
  syrk: ['uplo', 'trans', 'alpha', 'beta'], herk: ['uplo', 'trans', 'alpha', 'beta'], potrf: ['uplo'], potrs: ['uplo'], posv: ['uplo'], getrf: [], getrs: ['trans'], gesv: [],
  trtri: ['uplo', 'diag'], lauum: ['uplo'], potri: ['uplo'], poti: ['uplo'],
  syev: ['jobz', 'uplo'], heev: ['jobz', 'uplo'], gesvd: ['jobu', 'jobvt'], geqrf: [], orgqr: [], ormqr: ['side', 'trans'], gels: [], getri: [],
};

/**
 * Outputs whose values are defined only up to signs (eigen- and singular vectors): compared by
 * their properties (orthonormal, A V = V W, A = U S VT), not element by element.
 */
export function vectorOutput(s: CallSpec, name: string): boolean {
  return ((s.op === 'syev' || s.op === 'heev') && name === 'a') || (s.op === 'gesvd' && (name === 'u' || name === 'vt'));
}

/** May element (i, j) of output `name` be written by this call? (Everything else must stay bit-identical.) */
export function writable(s: CallSpec, name: string, i: number, j: number): boolean {
  const tri = s.uplo === 'lower' ? i >= j : i <= j;
  switch (s.op) {
    case 'syrk':
    case 'herk':
    case 'potrf':
    case 'lauum':
    case 'potri':
    case 'poti':
      return tri;
    case 'trtri':
      return tri && (s.diag === 'nonunit' || i !== j);
    case 'posv':
      return name === 'b' || tri;
    case 'syev':
    case 'heev':
      return name === 'w' || s.jobz === 'vectors';
    default:
      return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Generators

/** `rowMajor` false: column-major only (complex batches take no row-major order yet). */
const layoutArb = (output: boolean, varying: boolean, rowMajor = true): fc.Arbitrary<LayoutSpec> => fc.record({
  kind: varying ? fc.constant('variable' as const) : fc.constantFrom('strided' as const, 'list' as const, 'variable' as const),
  order: rowMajor ? fc.constantFrom('col' as const, 'row' as const) : fc.constant('col' as const),
  ldPad: fc.nat(2),
  offset: fc.nat(3),
  gap: output ? fc.nat(2) : fc.integer({ min: -1, max: 2 }),
  tail: fc.nat(2),
});

const dimsArb = (max: number): fc.Arbitrary<Dims> => fc.record({ m: fc.nat(max), n: fc.nat(max), k: fc.nat(max) });

/**
 * A random valid call of `op` (or of any op); `field` 'complex': complex128 or complex64 data (the
 * ops of COMPLEX_CONTRACT_OPS), column-major (complex batches take no row-major order yet), 'C'
 * among the transposes.
 */
export function callArb(ops: readonly ContractOp[] = CONTRACT_OPS, maxDim = 5, maxCount = 4, field: 'real' | 'complex' = 'real'): fc.Arbitrary<CallSpec> {
  const complex = field === 'complex';
  const transposes = complex ? ['N', 'T', 'C'] as const : ['N', 'T'] as const;
  return fc.record({
    op: fc.constantFrom(...ops),
    dtype: complex ? fc.constantFrom('complex128' as const, 'complex64' as const) : fc.constantFrom('float64' as const, 'float32' as const),
    varying: fc.boolean(),
    count: fc.nat(maxCount),
    uplo: fc.constantFrom('lower' as const, 'upper' as const),
    transA: fc.constantFrom(...transposes),
    transB: fc.constantFrom(...transposes),
    side: fc.constantFrom('left' as const, 'right' as const),
    diag: fc.constantFrom('unit' as const, 'nonunit' as const),
    jobz: fc.constantFrom('values' as const, 'vectors' as const),
    alpha: fc.constantFrom(1, -1, 0.5, 2, 0),
    beta: fc.constantFrom(0, 1, -0.5),
    giveInts: fc.boolean(),
    seed: fc.nat(),
  }).chain((r) => {
    const dims = r.varying ? fc.array(dimsArb(maxDim), { minLength: r.count, maxLength: r.count }) : dimsArb(maxDim).map((d) => Array.from({ length: r.count }, () => d));
    const names = BATCH_NAMES;
    return fc.tuple(dims, fc.tuple(...names.map((nm) => layoutArb(isOutput(r.op, nm), r.varying, !complex)))).map(([d, ls]): CallSpec => {
      const { varying: _v, count: _c, ...rest } = r;
      const layouts: Record<string, LayoutSpec> = {};
      names.forEach((nm, i) => { layouts[nm] = ls[i]!; });
      return { ...rest, dims: d, layouts };
    });
  });
}

function isOutput(op: ContractOp, name: string): boolean {
  return shapesOf({ op, transA: 'N', transB: 'N', side: 'left', jobz: 'vectors' } as CallSpec, { m: 1, n: 1, k: 1 }).find((a) => a.name === name)?.output ?? true;
}

// ---------------------------------------------------------------------------------------------
// Building a call

/** One batch argument as placed in memory, with what it needs for checks. */
export interface Placed {
  name: string;
  output: boolean;
  /** Floats an element: 2 for a complex argument (its views count complex elements). */
  parts: number;
  batch: Batch<FloatArray>;
  views: MatrixView<FloatArray>[];
  order: Order;
  buffers: FloatArray[];
}

export interface BuiltCall {
  spec: CallSpec;
  args: Record<string, unknown>;
  placed: Placed[];
  info?: Int32Array;
  ipiv?: Int32Array;
  /** Snapshot of every buffer's bytes before the call. */
  before: Map<ArrayBufferView, Uint8Array>;
}

function logicalValue(kind: DataKind, rng: Rng, i: number, j: number, n: number): number {
  const r = rng.uniform(-1, 1);
  switch (kind) {
    case 'general':
      return r;
    case 'triangular':
      // Off-diagonal entries below 1/n: well conditioned with a unit diagonal too.
      return i === j ? n + 1 + Math.abs(r) : r / (n + 1);
    case 'diagonal-heavy':
      return i === j ? n + 1 + Math.abs(r) : r; // rows permuted below
    case 'lu':
      return i === j ? n + 1 + Math.abs(r) : i > j ? r / (n + 1) : r;
    case 'spd':
      return r; // symmetrised below
    case 'reflectors':
      // geqrf's layout: R on and above the diagonal, the vectors below (small: |v|^2 < 2).
      return i > j ? r / (n + 1) : r;
    case 'tau':
      // With |v|^2 < 2, tau in [0.5, 1] keeps every I - tau v v^T of norm at most 1: no growth.
      return 0.75 + r / 4;
  }
}

/** Logical matrix (row-major rows x cols array of numbers) of the given kind. */
function logicalMatrix(kind: DataKind, rng: Rng, rows: number, cols: number): number[][] {
  const x = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => logicalValue(kind, rng, i, j, rows)));
  if (kind === 'diagonal-heavy') {
    // A row permutation of a diagonally dominant matrix: well conditioned, and partial pivoting
    // has rows to swap.
    for (let i = rows - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [x[i], x[j]] = [x[j]!, x[i]!];
    }
    return x;
  }
  if (kind !== 'spd') return x;
  // M M^T / n + I: symmetric positive definite, condition small.
  const n = rows;
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => {
    let s = i === j ? 1 : 0;
    for (let q = 0; q < n; q++) s += (x[i]![q]! * x[j]![q]!) / Math.max(1, n);
    return s;
  }));
}

/**
 * The imaginary part of element (i, j) of a complex matrix of `kind` (order n), scaled as
 * logicalValue scales the real part where conditioning depends on it: a triangle's and L's
 * off-diagonal and the reflectors below 1/n, a row-permuted diagonally dominant matrix's
 * off-diagonal small enough to stay dominant, tau small (its modulus below 1).
 */
function imagValue(kind: DataKind, r: number, i: number, j: number, n: number): number {
  switch (kind) {
    case 'triangular':
      return i === j ? r : r / (n + 1);
    case 'lu':
      return i > j ? r / (n + 1) : r;
    case 'reflectors':
      return r / (n + 1);
    case 'diagonal-heavy':
      return r / 4;
    case 'tau':
      return r / 8;
    default:
      return r;
  }
}

/**
 * The complex form of logicalMatrix, element (i, j) as [re, im]: the same kinds with the real part
 * as logicalMatrix draws it and the imaginary part by imagValue; Hermitian positive definite
 * (M M^H / n + I, a real diagonal) for 'spd'.
 */
function complexMatrix(kind: DataKind, rng: Rng, rows: number, cols: number): number[][][] {
  const re = logicalMatrix(kind === 'spd' ? 'general' : kind, rng, rows, cols);
  const im = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => imagValue(kind, rng.uniform(-1, 1), i, j, rows)));
  if (kind !== 'spd') return re.map((row, i) => row.map((x, j) => [x, im[i]![j]!]));
  const n = rows;
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => {
    // (M M^H)(i, j) = sum_q M(i, q) conj(M(j, q)).
    let sr = i === j ? 1 : 0, si = 0;
    for (let q = 0; q < n; q++) {
      const ar = re[i]![q]!, ai = im[i]![q]!, br = re[j]![q]!, bi = -im[j]![q]!;
      sr += (ar * br - ai * bi) / Math.max(1, n);
      si += (ar * bi + ai * br) / Math.max(1, n);
    }
    return [sr, i === j ? 0 : si];
  }));
}

export const at = (v: MatrixView<FloatArray>, order: Order, i: number, j: number): number => (order === 'col' ? v.offset + i + j * v.ld : v.offset + i * v.ld + j);

export function footprint(rows: number, cols: number, ld: number, order: Order): number {
  if (rows === 0 || cols === 0) return 0;
  const [inner, outer] = order === 'col' ? [rows, cols] : [cols, rows];
  return (outer - 1) * ld + inner;
}

/** A buffer of `length` elements (floats: length times the parts) full of sentinels. */
function sentinelBuffer(dtype: ElementType, length: number, rng: Rng): FloatArray {
  const e = elementInfo(dtype);
  const b = allocate(e.real, e.parts * length);
  for (let i = 0; i < b.length; i++) b[i] = 1000 + rng.int(0, 999);
  return b;
}

/** Floats an element of the call's type: 1, or 2 for complex pairs. */
export const partsOf = (spec: CallSpec): number => elementInfo(spec.dtype).parts;

/** The element type of argument `name`: the call's, but real parts for the values of a complex heev (w) and gesvd (s). */
export function elementOf(spec: CallSpec, name: string): ElementType {
  const realValues = (spec.op === 'heev' && name === 'w') || (spec.op === 'gesvd' && name === 's');
  return realValues ? elementInfo(spec.dtype).real : spec.dtype;
}

/** The batch options naming a complex type (none for a real one). */
const typeOption = (dtype: ElementType): { dtype?: ElementType } => (elementInfo(dtype).parts === 2 ? { dtype } : {});

/** Places one argument's matrices in fresh buffers filled with sentinels. */
function place(spec: CallSpec, shape: ArgShape, shapes: ArgShape[], layout: LayoutSpec, rng: Rng): Placed {
  const count = spec.dims.length;
  const order = layout.order;
  const dtype = elementOf(spec, shape.name);
  const ldOf = (r: number, c: number): number => Math.max(1, order === 'col' ? r : c) + layout.ldPad;
  const views: MatrixView<FloatArray>[] = [];
  const buffers: FloatArray[] = [];
  let batch: Batch<FloatArray>;
  const { rows, cols } = shape;
  if (layout.kind === 'strided') {
    const ld = ldOf(rows, cols);
    const fp = footprint(rows, cols, ld, order);
    const stride = layout.gap < 0 ? 0 : fp + layout.gap;
    const length = layout.offset + Math.max(0, count - 1) * stride + fp + layout.tail;
    const data = sentinelBuffer(dtype, length, rng);
    buffers.push(data);
    batch = strided(data, { rows, cols, count, ld, stride, offset: layout.offset, order, ...typeOption(dtype) });
    for (let i = 0; i < count; i++) views.push({ data, offset: layout.offset + i * stride, ld, rows, cols });
  } else {
    const each = shapes; // per-matrix shapes
    for (let i = 0; i < count; i++) {
      const sh = each[i]!;
      const ld = ldOf(sh.rows, sh.cols);
      const data = sentinelBuffer(dtype, layout.offset + footprint(sh.rows, sh.cols, ld, order) + layout.tail, rng);
      buffers.push(data);
      views.push({ data, offset: layout.offset, ld, rows: sh.rows, cols: sh.cols });
    }
    batch = layout.kind === 'list'
      ? list(views.map((v) => ({ data: v.data, offset: v.offset })), { rows, cols, ld: ldOf(rows, cols), order, ...typeOption(dtype) })
      : variable(views.map((v) => ({ data: v.data, rows: v.rows, cols: v.cols, ld: v.ld, offset: v.offset })), { order, ...typeOption(dtype) });
  }
  // Logical data; a stride-0 input holds one matrix for all.
  const distinct = layout.kind === 'strided' && layout.gap < 0 ? Math.min(count, 1) : count;
  const parts = elementInfo(dtype).parts;
  for (let i = 0; i < distinct; i++) {
    const v = views[i]!;
    const x = parts === 2 ? complexMatrix(shape.data, rng, v.rows, v.cols) : logicalMatrix(shape.data, rng, v.rows, v.cols).map((row) => row.map((e) => [e]));
    for (let r = 0; r < v.rows; r++) for (let c = 0; c < v.cols; c++) for (let q = 0; q < parts; q++) v.data[parts * at(v, order, r, c) + q] = x[r]![c]![q]!;
  }
  return { name: shape.name, output: shape.output, parts, batch, views, order, buffers };
}

/** Builds the arguments of a call on host memory. */
export function buildCall(spec: CallSpec): BuiltCall {
  const rng = new Rng(spec.seed);
  const count = spec.dims.length;
  const perMatrix = spec.dims.map((d) => shapesOf(spec, d));
  const shapes0 = perMatrix[0] ?? shapesOf(spec, { m: 0, n: 0, k: 0 });
  const placed = shapes0.map((sh, a) => place(spec, sh, perMatrix.map((p) => p[a]!), spec.layouts[sh.name]!, rng));
  const args: Record<string, unknown> = {};
  for (const p of placed) args[p.name] = p.batch;
  const keys = OPTION_KEYS[spec.op];
  if (keys.includes('uplo')) args['uplo'] = spec.uplo;
  if (keys.includes('side')) args['side'] = spec.side;
  if (keys.includes('diag')) args['diag'] = spec.diag;
  if (keys.includes('transA')) args['transA'] = spec.transA;
  if (keys.includes('transB')) args['transB'] = spec.transB;
  if (keys.includes('trans')) args['trans'] = transOf(spec);
  if (keys.includes('jobz')) args['jobz'] = spec.jobz;
  if (keys.includes('jobu')) args['jobu'] = spec.jobz === 'vectors' ? 'thin' : 'none';
  if (keys.includes('jobvt')) args['jobvt'] = spec.jobz === 'vectors' ? 'thin' : 'none';
  if (keys.includes('alpha')) args['alpha'] = spec.alpha;
  if (keys.includes('beta')) args['beta'] = spec.beta;
  const built: BuiltCall = { spec, args, placed, before: new Map() };
  const pivotStride = spec.op === 'getrf' ? Math.max(0, ...spec.dims.map((d) => Math.min(d.m, d.n)))
    : Math.max(0, ...spec.dims.map((d) => d.n));
  if (READS_IPIV.has(spec.op)) {
    const ipiv = new Int32Array(count * pivotStride + (spec.giveInts ? 2 : 0)).fill(-7);
    spec.dims.forEach((d, i) => { for (let j = 0; j < d.n; j++) ipiv[i * pivotStride + j] = rng.int(j, d.n - 1); });
    built.ipiv = ipiv;
    args['ipiv'] = ipiv;
    if (spec.op === 'getri') makeSingular(spec, placed[0]!, rng);
  } else if (HAS_IPIV.has(spec.op) && spec.giveInts) {
    built.ipiv = new Int32Array(count * pivotStride + 2).fill(-7);
    args['ipiv'] = built.ipiv;
  }
  if (HAS_INFO.has(spec.op) && spec.giveInts) {
    built.info = new Int32Array(count + 2).fill(-9);
    args['info'] = built.info;
  }
  for (const buf of allBuffers(built)) built.before.set(buf, bytesOf(buf));
  return built;
}

/**
 * The op's `trans` from transA: herk takes 'N' or 'C' on complex data ('T' becomes 'C'), syrk and
 * a complex ormqr 'N' or their one transpose ('C' becomes 'T' for syrk, 'T' becomes 'C' for ormqr).
 */
function transOf(spec: CallSpec): 'N' | 'T' | 'C' {
  const t = spec.transA;
  if (t === 'N' || partsOf(spec) === 1) return t;
  if (spec.op === 'herk' || spec.op === 'ormqr') return 'C';
  if (spec.op === 'syrk') return 'T';
  return t;
}

/**
 * getri: about one matrix in four (n > 0) gets an exactly zero U(k, k), so info = k + 1 and the
 * matrix must be left as it was. (A is an output, so never a stride-0 broadcast.)
 */
function makeSingular(spec: CallSpec, a: Placed, rng: Rng): void {
  spec.dims.forEach((d, i) => {
    if (d.n === 0 || rng.int(0, 3) !== 0) return;
    const k = rng.int(0, d.n - 1);
    const v = a.views[i]!;
    const parts = partsOf(spec);
    for (let q = 0; q < parts; q++) v.data[parts * at(v, a.order, k, k) + q] = 0;
  });
}

function allBuffers(c: BuiltCall): ArrayBufferView[] {
  const out: ArrayBufferView[] = c.placed.flatMap((p) => p.buffers);
  if (c.info) out.push(c.info);
  if (c.ipiv) out.push(c.ipiv);
  return out;
}

export const bytesOf = (v: ArrayBufferView): Uint8Array => new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice();
