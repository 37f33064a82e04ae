/**
 * Block-wide staging of one-matrix-per-thread kernels (a thread owns a whole small matrix): the
 * block's matrices move between global memory and shared memory by coalesced copies, and each
 * thread then reads and writes only its own slot. Unlike common/tile-load.ts (whose vector path
 * unpacks every 16-byte vector element by element into slots of an odd element stride), the slots
 * here are laid out so that both sides move whole 16-byte vectors:
 *
 * - `chunked` (the matrix is a whole number CH of 16-byte chunks): a slot is S = CH rounded up to an
 *   odd count of chunks; global chunk g of the block's span goes to chunk (g / CH) S + g % CH of
 *   shared memory (one division by a constant per vector), and a thread reads its slot chunk by
 *   chunk. With S odd, the eight threads of a quarter-warp (one 128-bit shared access phase) fall on
 *   eight distinct 16-byte bank groups; where CH is odd, S = CH and the copy is a plain memcpy.
 * - otherwise (an odd element count, or float32 counts of 2 mod 4): slots are packed back to back, the
 *   copy is a plain memcpy of vectors, and a thread reads its slot element by element at a stride of
 *   the element count (odd: conflict-free; 2 mod 4: two-way).
 *
 * A densely packed strided operand moves by vectors where the block is full and its span 16-byte
 * aligned, else element by element (coalesced; the last, partly empty block); any other operand
 * (ragged ld or stride, pointer lists) element by element through each matrix's pointer and ld
 * (coalesced along columns).
 */
import type { DType } from '../../../core/dtype.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import { matrixPointer, spanPointer, type OperandLayout, type OperandName } from './batch-pointer.js';
import { elementBytes } from './precision.js';

/**
 * The dynamic shared memory a staged per-thread block takes at most: 48 KiB, what a launch gets
 * without the opt-in attribute (the per-thread syev designs' plans keep their slots within it).
 */
export const STAGED_SHARED_MAX = 48 * 1024;

/** How one thread's slot of `elems` elements is laid out in shared memory. */
export interface SpanSlot {
  /** Elements per matrix. */
  readonly elems: number;
  /** Elements per 16-byte vector. */
  readonly vec: number;
  /** Whole 16-byte chunks per matrix (slots then an odd count of chunks, accessed by vectors). */
  readonly chunked: boolean;
  /** Shared elements per slot (a multiple of `vec` where chunked, else `elems`). */
  readonly slot: number;
}

export function spanSlot(dtype: DType, elems: number): SpanSlot {
  const vec = 16 / elementBytes(dtype);
  if (elems > 0 && elems % vec === 0) return { elems, vec, chunked: true, slot: ((elems / vec) | 1) * vec };
  return { elems, vec, chunked: false, slot: Math.max(1, elems) };
}

/** One operand's block copy: its name, layout, rows (elements down a column) and the shared array. */
export interface SpanCopy {
  readonly operand: OperandName;
  readonly layout: OperandLayout;
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  /** The shared array's name (16-byte aligned) and the slot layout. */
  readonly shared: string;
  readonly slot: SpanSlot;
  /** The C type of the operand's elements where it is not the kernel's `real` (data narrower than the arithmetic). */
  readonly element?: string;
}

type Direction = 'load' | 'store';

/** Shared index of element e of the block's span (q = e / ELEMS is the matrix within the block). */
const sharedOfElement = (s: SpanSlot): string => (s.slot === s.elems ? 'e' : `q * ${s.slot} + (e - q * ${s.elems})`);

/** Element by element: dense spans through the span pointer, other forms through each matrix's pointer and ld. */
function scalarLoop(c: SpanCopy, dir: Direction): string {
  const X = c.operand;
  const global = c.layout.dense ? `span${X}[e]` : `${matrixPointer(X, c.layout.kind, 'first + q')}[w % ${c.rows} + (long long)(w / ${c.rows}) * ld${X}]`;
  const sh = `${c.shared}[${sharedOfElement(c.slot)}]`;
  return `#pragma unroll
    for (int it = 0; it < (SPAN + THREADS - 1) / THREADS; ++it) {
      const int e = t + it * THREADS;
      const int q = e / ELEMS;                 // matrix within the block
      const int w = e - q * ELEMS;             // element within the matrix, column-major
      (void)w;
      if ((SPAN % THREADS == 0 || e < SPAN) && q < nmat) ${dir === 'load' ? `${sh} = ${global};` : `${global} = ${sh};`}
    }`;
}

/** Whole vectors of a full, aligned dense span: chunk v of the span to its chunk of shared memory. */
function vectorLoop(c: SpanCopy, dir: Direction): string {
  const X = c.operand;
  const vecType = dtypeInfo(c.dtype).cuda.vector.type;
  const ch = c.slot.elems / c.slot.vec;
  const target = c.slot.chunked && c.slot.slot !== c.slot.elems ? `(v / ${ch}) * ${c.slot.slot / c.slot.vec} + v % ${ch}` : 'v';
  const sh = `reinterpret_cast<${dir === 'load' ? '' : 'const '}${vecType}*>(${c.shared})[${target}]`;
  const gl = `reinterpret_cast<${dir === 'load' ? 'const ' : ''}${vecType}*>(span${X})[v]`;
  return `#pragma unroll
    for (int it = 0; it < (SPAN / VEC + THREADS - 1) / THREADS; ++it) {
      const int v = t + it * THREADS;
      if ((SPAN / VEC) % THREADS != 0 && v >= SPAN / VEC) break;
      ${dir === 'load' ? `${sh} = ${gl};` : `${gl} = ${sh};`}
    }`;
}

/** The block's copy one way (needs t, first, nmat, TBC, THREADS and the operand's parameters in scope). */
function spanCopy(c: SpanCopy, dir: Direction): string {
  const X = c.operand;
  const header = `constexpr int ELEMS = ${c.slot.elems};   // one matrix
    constexpr int SPAN = TBC * ELEMS;      // the block's matrices`;
  if (!c.layout.dense) return `{
    ${header}
    ${scalarLoop(c, dir)}
  }`;
  return `{
    ${header}
    constexpr int VEC = ${c.slot.vec};            // elements per 16-byte vector
    ${dir === 'load' ? 'const ' : ''}${c.element ?? 'real'}* span${X} = ${spanPointer(X, 'first')};
    if (SPAN % VEC == 0 && nmat == TBC && reinterpret_cast<unsigned long long>(span${X}) % 16 == 0) {
    ${vectorLoop(c, dir)}
    } else {
    ${scalarLoop(c, dir)}
    }
  }`;
}

/** Global -> shared for the block's matrices. */
export const spanLoad = (c: SpanCopy): string => spanCopy(c, 'load');

/** Shared -> global, the same mapping reversed. */
export const spanStore = (c: SpanCopy): string => spanCopy(c, 'store');

/**
 * Statements that move elements `from` .. `to` - 1 of this thread's slot (the pointer `slot`) to or
 * from registers named by `reg(e)`: by 16-byte vectors where the slot is chunked (`from` and `to`
 * whole chunks), else element by element.
 */
export function slotMoves(s: SpanSlot, dtype: DType, slot: string, from: number, to: number, dir: 'read' | 'write', reg: (e: number) => string): string[] {
  const out: string[] = [];
  if (!s.chunked) {
    for (let e = from; e < to; e++) out.push(dir === 'read' ? `${reg(e)} = ${slot}[${e}];` : `${slot}[${e}] = ${reg(e)};`);
    return out;
  }
  if (from % s.vec !== 0 || to % s.vec !== 0) throw new Error(`slotMoves: ${from}..${to} are not whole chunks of ${s.vec}`);
  const { type, members } = dtypeInfo(dtype).cuda.vector;
  for (let e = from; e < to; e += s.vec) {
    const v = `reinterpret_cast<${dir === 'read' ? 'const ' : ''}${type}*>(${slot})[${e / s.vec}]`;
    if (dir === 'read') out.push(`{ const ${type} x = ${v}; ${members.map((m, u) => `${reg(e + u)} = x.${m};`).join(' ')} }`);
    else out.push(`{ ${type} x; ${members.map((m, u) => `x.${m} = ${reg(e + u)};`).join(' ')} ${v} = x; }`);
  }
  return out;
}

/**
 * The frame of a per-thread kernel staged through its dynamic shared memory (the per-thread syev
 * designs, jacobi/generate-thread.ts and ql-thread/generate.ts): A's slots then W's, A loaded by
 * one block copy, `body` for each thread that has a matrix (`mat` its index in the group, `sa` and
 * `w` its slots), then W stored and, where the body writes it (`writesA`), A. Needs the constants of
 * `stagedConstants` and the operands' parameters in scope; `element` is the slots' C type.
 */
export function stagedFrame(o: { readonly element: string; readonly a: SpanCopy; readonly w: SpanCopy; readonly writesA: boolean; readonly body: string }): string {
  const el = o.element;
  return `  extern __shared__ __align__(16) unsigned char smem[];
  ${el}* sA = reinterpret_cast<${el}*>(smem);
  ${el}* sW = sA + THREADS * SA;
  const int t = threadIdx.x;
  const int first = blockIdx.x * THREADS;       // the block's first matrix
  const int nmat = min(TBC, count - first);     // matrices in this block (the last one may be short)
  ${spanLoad(o.a)}
  __syncthreads();
  if (t < nmat) {
    const int mat = first + t;
    ${el}* sa = sA + t * SA;                     // this thread's slots
    ${el}* w = sW + t * SW;
${o.body.split('\n').map((l) => (l === '' ? l : `  ${l}`)).join('\n')}
  }
  __syncthreads();
  ${spanStore(o.w)}
${o.writesA ? `  ${spanStore(o.a)}` : ''}`;
}

/** The slots of a staged per-thread syev kernel (stagedFrame): A's n x n and W's n elements a thread. */
export const stagedSlots = (dtype: DType, n: number): { readonly a: SpanSlot; readonly w: SpanSlot } => ({ a: spanSlot(dtype, n * n), w: spanSlot(dtype, n) });

/** Dynamic shared bytes of a staged block of `threads` matrices of order n. */
export function stagedSharedBytes(threads: number, dtype: DType, n: number): number {
  const s = stagedSlots(dtype, n);
  return threads * (s.a.slot + s.w.slot) * elementBytes(dtype);
}

/**
 * Whether a per-thread syev kernel (`design` names it in errors) stages through shared memory, and its
 * operands' dense flags: as `stage` forces (true where the slots exceed STAGED_SHARED_MAX is an error
 * naming force.stage), else where the plan `wants` it, never where the slots do not fit.
 */
export function stagedLayout(o: {
  readonly design: string; readonly threads: number; readonly dtype: DType; readonly n: number;
  readonly denseA: boolean | undefined; readonly denseW: boolean | undefined; readonly wants: boolean; readonly stage: boolean | undefined;
}): { readonly staged: boolean; readonly denseA: boolean; readonly denseW: boolean } {
  const bytes = stagedSharedBytes(o.threads, o.dtype, o.n);
  const fits = bytes <= STAGED_SHARED_MAX;
  if (o.stage === true && !fits)
    throw new MyriadError('UNSUPPORTED', `${o.design}'s staged slots of n = ${o.n} (${o.dtype}) take ${bytes} bytes a block, more than ${STAGED_SHARED_MAX}`, 'force.stage');
  const staged = (o.stage ?? o.wants) && fits;
  return { staged, denseA: staged && o.denseA === true, denseW: staged && o.denseW === true };
}

/** The constants stagedFrame names: threads (one matrix each) a block, and the two slots' sizes. */
export const stagedConstants = (threads: number, a: SpanSlot, w: SpanSlot): string => `constexpr int THREADS = ${threads};   // threads (matrices) per block
constexpr int TBC = THREADS;                 // matrices per block, as common/span-stage.ts names them
constexpr int SA = ${a.slot};                      // shared elements of a thread's A slot
constexpr int SW = ${w.slot};                      // and of its W slot
`;
