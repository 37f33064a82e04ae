/**
 * syev, heev (on real data) and gesvd on row-major host batches, by every way of calling them: the plain call, its
 * Async form, a prepared call and the top-level function copy the row-major batches to column-major
 * and back (the op specs' `copies`), with the results of the same matrices given column-major.
 * The prepared calls once ran the row-major data as if it were column-major (transposed vectors, w
 * written densely over its gaps, gesvd reading past a short matrix).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gesvd, heev, open, strided, syev } from '../../src/index.js';
import type { Context } from '../../src/api/context.js';
import { Rng } from '../helpers/random.js';

type Form = 'plain' | 'async' | 'prepared' | 'top-level';
const FORMS: readonly Form[] = ['plain', 'async', 'prepared', 'top-level'];
const SENTINEL = -7.25;

/** Column-major (ld = rows) to row-major with leading dimension ld, SENTINEL in the padding. */
function toRow(col: Float64Array, rows: number, cols: number, ld: number): Float64Array {
  const out = new Float64Array(rows * ld).fill(SENTINEL);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[i * ld + j] = col[i + j * rows]!;
  return out;
}

async function runForm(ctx: Context, form: Form, op: 'syev' | 'heev' | 'gesvd', args: Record<string, unknown>): Promise<void> {
  const call = args as never;
  if (form === 'plain') ctx[op](call);
  else if (form === 'async') await ctx[`${op}Async`](call);
  else if (form === 'prepared') ctx.prepare[op](call)();
  else if (op === 'gesvd') gesvd(call);
  else if (op === 'syev') syev(call);
  else heev(call);
}

// Complex batches are column-major only (an error names a.order): heev runs here on real data.
describe('row-major syev, heev and gesvd by every call form', () => {
  it('equal the column-major call, padding untouched', async () => {
    const rng = new Rng(77);
    for (const backend of ['cpu', 'reference'] as const) {
      const ctx = open({ backend });
      for (const op of ['syev', 'heev', 'gesvd'] as const) {
        const [m, n] = op === 'gesvd' ? [3, 5] : [4, 4];
        const k = Math.min(m, n);
        const a = new Float64Array(m * n).map(() => rng.uniform());
        if (op !== 'gesvd') for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) a[i + j * n] = a[j + i * n]!;
        // The column-major call.
        const col = { a: a.slice(), w: new Float64Array(k), u: new Float64Array(m * k), vt: new Float64Array(k * n) };
        const colArgs = op === 'gesvd'
          ? { a: strided(col.a, { rows: m, cols: n }), s: strided(col.w, { rows: k, cols: 1 }), u: strided(col.u, { rows: m, cols: k }), vt: strided(col.vt, { rows: k, cols: n }) }
          : { a: strided(col.a, { rows: n }), w: strided(col.w, { rows: n, cols: 1 }) };
        await runForm(ctx, 'plain', op, colArgs);
        // The top-level functions run on the cpu backend: compared where that is the context's.
        for (const form of FORMS.filter((f) => f !== 'top-level' || backend === 'cpu')) {
          const at = `${backend} ${op} ${form}`;
          // Row-major with padding: A's ld n + 1, w's (a column) ld 2, u's and vt's one past their columns.
          const rowA = toRow(a, m, n, n + 1);
          const rowW = new Float64Array(2 * k).fill(SENTINEL);
          const rowU = new Float64Array(m * (k + 1)).fill(SENTINEL), rowVt = new Float64Array(k * (n + 1)).fill(SENTINEL);
          const w = strided(rowW, { rows: k, cols: 1, ld: 2, order: 'row' });
          const args = op === 'gesvd'
            ? { a: strided(rowA, { rows: m, cols: n, ld: n + 1, order: 'row' }), s: w, u: strided(rowU, { rows: m, cols: k, ld: k + 1, order: 'row' }), vt: strided(rowVt, { rows: k, cols: n, ld: n + 1, order: 'row' }) }
            : { a: strided(rowA, { rows: n, ld: n + 1, order: 'row' }), w };
          await runForm(ctx, form, op, args);
          assert.deepEqual([...rowW], [...col.w].flatMap((x) => [x, SENTINEL]), `${at}: w`);
          if (op === 'gesvd') {
            assert.deepEqual([...rowA], [...toRow(a, m, n, n + 1)], `${at}: A is only read`);
            assert.deepEqual([...rowU], [...toRow(col.u, m, k, k + 1)], `${at}: u`);
            assert.deepEqual([...rowVt], [...toRow(col.vt, k, n, n + 1)], `${at}: vt`);
          } else {
            assert.deepEqual([...rowA], [...toRow(col.a, n, n, n + 1)], `${at}: the vectors`);
          }
        }
        // jobz 'values' leaves a row-major A as it was (nothing written back).
        if (op !== 'gesvd') {
          const rowA = toRow(a, n, n, n + 1);
          const before = rowA.slice();
          ctx.prepare[op]({ jobz: 'values', a: strided(rowA, { rows: n, ld: n + 1, order: 'row' }), w: strided(new Float64Array(n), { rows: n, cols: 1 }) } as never)();
          assert.deepEqual([...rowA], [...before], `${backend} ${op}: values only`);
        }
      }
    }
  });
});
