/**
 * The dense part of a multifrontal Cholesky factorization, as sparse direct solvers run it: the
 * fronts of an elimination tree are factored level by level, every front of a level in the same
 * three batched calls, whatever their sizes (variable batches).
 *
 * A front F (n = k + s, its k pivots first, then the s indices of its update set) is partially
 * factored in three steps, LAPACK's names for the parts of what sparse solvers call a front's
 * partial factorization:
 *
 *     F = [F11  .  ]      potrf  F11 = L11 L11^T                      (k x k)
 *         [F21  F22]      trsm   L21 = F21 L11^-T   (side right, lower, transA 'T')   (s x k)
 *                         syrk   F22 = F22 - L21 L21^T  (the update matrix, s x s)
 *
 * The columns [L11; L21] are the factor's columns of the front's pivots; the update matrix F22 is
 * added into the parent's front (extend-add, a scatter on the host here) before the parent's level
 * runs. The tree is synthetic (random shape, pivots per front log-uniform), its sparse SPD matrix
 * made to fit it: every front's structure is its pivots and an update set drawn from its parent's
 * structure, so the factor has no fill outside the fronts.
 *
 *   node dist/examples/multifrontal.js [fronts] [max pivots]      (default 20000 fronts, 64)
 */
import { pathToFileURL } from 'node:url';
import { cpuContext, open, variable, type Context } from '../src/index.js';
import { positiveArg } from './args.js';

export interface Front {
  /** The front's pivots (consecutive global indices) and its update set (ascending, all larger). */
  readonly pivots: readonly number[];
  readonly update: readonly number[];
  readonly parent: number;
  readonly children: readonly number[];
  /** 0 for a leaf, else one more than its highest child: fronts of a level are independent. */
  readonly level: number;
}

export interface EliminationTree {
  /** The matrix order (the number of pivots over all fronts). */
  readonly n: number;
  readonly fronts: readonly Front[];
  /** Front indices per level, leaves first. */
  readonly levels: readonly (readonly number[])[];
}

/** The lower triangle of a sparse symmetric matrix in coordinates (row >= col). */
export interface SparseLower { readonly n: number; readonly rows: Int32Array; readonly cols: Int32Array; readonly values: Float64Array }

/** xorshift32 in [0, 1): the example's only randomness, so every run builds the same tree. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; };
}

/**
 * A random elimination tree of `fronts` fronts (front 0 the root; each other front's parent drawn
 * among the fronts before it), each with 1 ... maxPivots pivots (log-uniform) and, below the root,
 * an update set of at most maxUpdate indices: at least one of the parent's pivots, then more of
 * the parent's pivots and update set. Pivots are numbered in postorder (a front's after its
 * children's), so an update set's indices are all larger than the front's pivots.
 */
export function syntheticTree(fronts: number, maxPivots: number, maxUpdate = 2 * maxPivots, seed = 7): EliminationTree {
  const rand = random(seed);
  const parent = Array.from({ length: fronts }, (_, f) => (f === 0 ? -1 : Math.floor(rand() * f)));
  const children: number[][] = Array.from({ length: fronts }, () => []);
  for (let f = 1; f < fronts; f++) children[parent[f]!]!.push(f);
  const pivotCount = Array.from({ length: fronts }, () => Math.max(1, Math.min(maxPivots, Math.floor(Math.exp(rand() * Math.log(maxPivots + 1))))));

  // Postorder numbering of the pivots (iterative: the tree can be deep).
  const first = new Array<number>(fronts).fill(0);
  const level = new Array<number>(fronts).fill(0);
  let next = 0;
  const stack: { f: number; child: number }[] = [{ f: 0, child: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const kids = children[top.f]!;
    if (top.child < kids.length) { stack.push({ f: kids[top.child++]!, child: 0 }); continue; }
    stack.pop();
    first[top.f] = next;
    next += pivotCount[top.f]!;
    for (const c of kids) level[top.f] = Math.max(level[top.f]!, level[c]! + 1);
  }

  // Update sets, parents first (a parent's index is smaller than its children's).
  const pivots = pivotCount.map((k, f) => Array.from({ length: k }, (_, i) => first[f]! + i));
  const update: number[][] = Array.from({ length: fronts }, () => []);
  for (let f = 1; f < fronts; f++) {
    const p = parent[f]!;
    const pool = [...pivots[p]!, ...update[p]!];
    const size = Math.max(1, Math.min(maxUpdate, pool.length, Math.floor(rand() * (maxUpdate + 1))));
    const chosen = new Set<number>([pivots[p]![Math.floor(rand() * pivots[p]!.length)]!]);
    while (chosen.size < size) chosen.add(pool[Math.floor(rand() * pool.length)]!);
    update[f] = [...chosen].sort((x, y) => x - y);
  }

  const height = Math.max(...level);
  const levels: number[][] = Array.from({ length: height + 1 }, () => []);
  level.forEach((l, f) => levels[l]!.push(f));
  return {
    n: next,
    fronts: pivots.map((pv, f) => ({ pivots: pv, update: update[f]!, parent: parent[f]!, children: children[f]!, level: level[f]! })),
    levels,
  };
}

/**
 * A sparse SPD matrix whose pattern fits the tree: for each front, every (i, j) with j one of its
 * pivots and i in its structure below j, a value uniform in [-1, 1); the diagonal 1 more than its
 * row's off-diagonal absolute sum (diagonally dominant, so positive definite).
 */
export function matrixOfTree(tree: EliminationTree, seed = 11): SparseLower {
  const rand = random(seed);
  const rows: number[] = [];
  const cols: number[] = [];
  const values: number[] = [];
  const rowSum = new Float64Array(tree.n);
  for (const front of tree.fronts) {
    const structure = [...front.pivots, ...front.update];
    for (const j of front.pivots) {
      for (const i of structure) {
        if (i <= j) continue;
        const v = 2 * rand() - 1;
        rows.push(i); cols.push(j); values.push(v);
        rowSum[i] = rowSum[i]! + Math.abs(v);
        rowSum[j] = rowSum[j]! + Math.abs(v);
      }
    }
  }
  for (let i = 0; i < tree.n; i++) { rows.push(i); cols.push(i); values.push(rowSum[i]! + 1); }
  return { n: tree.n, rows: Int32Array.from(rows), cols: Int32Array.from(cols), values: Float64Array.from(values) };
}

export interface LevelTiming {
  level: number; fronts: number; minOrder: number; maxOrder: number; ms: number;
}

export interface MultifrontalResult {
  tree: EliminationTree;
  matrix: SparseLower;
  /** The factor L's columns, front by front: column j of L at rows factorRows[f] (the front's structure). */
  factorColumns: Float64Array[];
  /** Per front: info of its potrf (0: its pivot block was positive definite). */
  info: Int32Array;
  levels: LevelTiming[];
  /** The batched calls' milliseconds (assembly and extend-add excluded). */
  msDense: number;
}

/** The front's structure: its pivots, then its update set. */
const structureOf = (front: Front): number[] => [...front.pivots, ...front.update];

/**
 * Factors the matrix of `tree` level by level: each level's fronts assembled into one Float64Array
 * (column-major, each front n x n at its own offset), then potrf, trsm and syrk over the level's
 * fronts as variable batches on `ctx`.
 */
export function runMultifrontal(tree: EliminationTree, matrix: SparseLower, ctx: Context = cpuContext): MultifrontalResult {
  const fronts = tree.fronts;
  // The original entries by the front that owns their column (the front whose pivots hold it).
  const owner = new Int32Array(tree.n);
  fronts.forEach((front, f) => { for (const j of front.pivots) owner[j] = f; });
  const entriesOf: number[][] = Array.from({ length: fronts.length }, () => []);
  for (let e = 0; e < matrix.values.length; e++) entriesOf[owner[matrix.cols[e]!]!]!.push(e);

  const updates: (Float64Array | undefined)[] = new Array(fronts.length);
  const factorColumns: Float64Array[] = new Array(fronts.length);
  const info = new Int32Array(fronts.length);
  const levels: LevelTiming[] = [];
  let msDense = 0;

  tree.levels.forEach((members, level) => {
    // Assembly: each front's place in the level's buffer, the original entries, the children's updates.
    const orders = members.map((f) => fronts[f]!.pivots.length + fronts[f]!.update.length);
    const offsets = new Array<number>(members.length);
    let total = 0;
    orders.forEach((n, q) => { offsets[q] = total; total += n * n; });
    const buffer = new Float64Array(total);
    members.forEach((f, q) => {
      const front = fronts[f]!;
      const structure = structureOf(front);
      const n = structure.length;
      const local = new Map(structure.map((g, i) => [g, i]));
      const at = (i: number, j: number): number => offsets[q]! + local.get(j)! * n + local.get(i)!;
      const add = (index: number, v: number): void => { buffer[index] = buffer[index]! + v; };
      for (const e of entriesOf[f]!) add(at(matrix.rows[e]!, matrix.cols[e]!), matrix.values[e]!);
      for (const c of front.children) {
        const u = fronts[c]!.update;
        const child = updates[c]!;
        for (let j = 0; j < u.length; j++)
          for (let i = j; i < u.length; i++) add(at(u[i]!, u[j]!), child[j * u.length + i]!);
        updates[c] = undefined;
      }
    });

    // The level's partial factorizations: three batched calls over fronts of different sizes.
    const withUpdate = members.map((_, q) => q).filter((q) => fronts[members[q]!]!.update.length > 0);
    const pivotBlocks = variable(members.map((f, q) => ({ data: buffer, rows: fronts[f]!.pivots.length, ld: orders[q]!, offset: offsets[q]! })));
    const below = variable(withUpdate.map((q) => {
      const k = fronts[members[q]!]!.pivots.length;
      return { data: buffer, rows: orders[q]! - k, cols: k, ld: orders[q]!, offset: offsets[q]! + k };
    }));
    const triangles = variable(withUpdate.map((q) => ({ data: buffer, rows: fronts[members[q]!]!.pivots.length, ld: orders[q]!, offset: offsets[q]! })));
    const trailing = variable(withUpdate.map((q) => {
      const k = fronts[members[q]!]!.pivots.length;
      return { data: buffer, rows: orders[q]! - k, ld: orders[q]!, offset: offsets[q]! + k * orders[q]! + k };
    }));
    const levelInfo = new Int32Array(members.length);
    const t0 = performance.now();
    ctx.potrf({ uplo: 'lower', a: pivotBlocks, info: levelInfo });
    if (withUpdate.length > 0) {
      ctx.trsm({ side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', alpha: 1, a: triangles, b: below });
      ctx.syrk({ uplo: 'lower', trans: 'N', alpha: -1, a: below, beta: 1, c: trailing });
    }
    const ms = performance.now() - t0;
    msDense += ms;
    levels.push({ level, fronts: members.length, minOrder: Math.min(...orders), maxOrder: Math.max(...orders), ms });

    // The factor's columns and the update matrices the parents will add.
    members.forEach((f, q) => {
      info[f] = levelInfo[q]!;
      const n = orders[q]!;
      const k = fronts[f]!.pivots.length;
      factorColumns[f] = buffer.slice(offsets[q]!, offsets[q]! + k * n);
      const s = n - k;
      const update = new Float64Array(s * s);
      for (let j = 0; j < s; j++)
        for (let i = j; i < s; i++) update[j * s + i] = buffer[offsets[q]! + (k + j) * n + k + i]!;
      updates[f] = update;
    });
  });
  return { tree, matrix, factorColumns, info, levels, msDense };
}

/** The factor as a dense n x n column-major lower triangle (for checking small trees). */
export function denseFactor(r: MultifrontalResult): Float64Array {
  const n = r.tree.n;
  const L = new Float64Array(n * n);
  r.tree.fronts.forEach((front, f) => {
    const structure = structureOf(front);
    const cols = r.factorColumns[f]!;
    front.pivots.forEach((j, c) => {
      structure.forEach((i, row) => { if (i >= j) L[j * n + i] = cols[c * structure.length + row]!; });
    });
  });
  return L;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fronts = positiveArg(2, 'fronts', 20_000);
  const maxPivots = positiveArg(3, 'max pivots', 64);
  const tree = syntheticTree(fronts, maxPivots);
  const matrix = matrixOfTree(tree);
  const ctx = open({ backend: 'auto' });
  try {
    const r = runMultifrontal(tree, matrix, ctx);
    const failed = r.info.reduce((s, v) => s + (v !== 0 ? 1 : 0), 0);
    console.log(`multifrontal Cholesky on ${ctx.describe()}: ${fronts} fronts, n = ${tree.n}, ${matrix.values.length} nonzeros, ${tree.levels.length} levels`);
    console.log('level  fronts  front orders        ms');
    for (const l of r.levels)
      console.log(`${String(l.level).padStart(5)}  ${String(l.fronts).padStart(6)}  ${`${l.minOrder} - ${l.maxOrder}`.padStart(12)}  ${l.ms.toFixed(2).padStart(8)}`);
    console.log(`batched calls ${r.msDense.toFixed(1)} ms in all; fronts not positive definite: ${failed}`);
  } finally {
    ctx.dispose();
  }
}
