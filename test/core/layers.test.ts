/**
 * The import graph of src/ (read from the import statements): every arrow points down the
 * layers, a kernel family uses another only through its public face (its index.ts), and the
 * families that are alternatives in one route of the router neither import each other nor are
 * both imported by a third family (routing is the router's).
 *   core  <-  cpu  <-  cpu-fast  <-  cuda  <-  api  <-  bench  <-  cli.ts, index.ts
 *   inside cuda: runtime <- model <- kernels, baselines, vendor <- router, route-split <- host <- backend <- multi <- tune
 * And the compiled modules (dist/src, where type-only imports are gone) import one another in no
 * circle: a module in a circle can run before its imports are initialised.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ARRAY_ROUTES, ROUTES } from '../../src/cuda/router.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
/** The compiled src/ beside this compiled test (dist/src). */
const DIST_SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** [importer, imported] as paths relative to src/, for every relative import or re-export. */
function edges(): [string, string][] {
  const out: [string, string][] = [];
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\b[^'";]*?from '(\.[^']+)'|^import '(\.[^']+)'/gm)) {
      const spec = (m[1] ?? m[2])!.replace(/\.js$/, '.ts');
      out.push([relative(SRC, file), relative(SRC, normalize(join(dirname(file), spec)))]);
    }
  }
  return out;
}

const TOP: Readonly<Record<string, number>> = { core: 0, cpu: 1, 'cpu-fast': 2, cuda: 3, api: 4, bench: 5, 'cli.ts': 6, 'index.ts': 6 };
const CUDA: Readonly<Record<string, number>> = {
  runtime: 0, model: 1, kernels: 2, baselines: 2, vendor: 2, 'router.ts': 3, 'route-split.ts': 3, host: 4, 'backend.ts': 5, multi: 6, tune: 7,
};

function rank(path: string): [number, number] {
  const [top, sub] = path.split('/');
  const outer = TOP[top!];
  if (outer === undefined) throw new Error(`no layer for src/${path}: add its folder to the layers test`);
  if (top !== 'cuda') return [outer, 0];
  const inner = CUDA[sub!];
  if (inner === undefined) throw new Error(`no layer for src/${path}: add it to the cuda layers of the layers test`);
  return [outer, inner];
}

test('every import points down the layers', () => {
  const up = edges().filter(([from, to]) => {
    const [a, b] = [rank(from), rank(to)];
    return b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]);
  });
  assert.deepEqual(up.map(([from, to]) => `${from} -> ${to}`), []);
});

const family = (p: string): string | undefined => /^cuda\/kernels\/([^/]+)\//.exec(p)?.[1];

/**
 * The imports of another family's module other than its index.ts, each with its reason: two
 * families that run each other keep the runtime circle open by importing the launcher module.
 */
const BESIDE_THE_FACE: ReadonlyMap<string, string> = new Map([
  ['cuda/kernels/trtri/launch.ts -> cuda/kernels/trsm/launch.ts', 'trtri runs trmm; trsm/index.ts loads launch-trsm.ts, which runs trtri'],
  ['cuda/kernels/trsm/launch-trsm.ts -> cuda/kernels/trtri/launch.ts', 'trsm inverts blocks by trtri; trtri/index.ts loads launch-vbatched.ts, which runs trsm'],
]);

test('kernel families share code through common/ and use each other only through index.ts', () => {
  const bad = edges().filter(([from, to]) => {
    const [f, g] = [family(from), family(to)];
    if (f === undefined || g === undefined || f === g) return false;
    if (f === 'common') return true; // common/ serves the families, never the reverse
    return g !== 'common' && to.split('/').pop() !== 'index.ts' && !BESIDE_THE_FACE.has(`${from} -> ${to}`);
  });
  assert.deepEqual(bad.map(([from, to]) => `${from} -> ${to}`), []);
});

test('the exceptions to the public-face rule are imports that exist', () => {
  const all = new Set(edges().map(([from, to]) => `${from} -> ${to}`));
  assert.deepEqual([...BESIDE_THE_FACE.keys()].filter((e) => !all.has(e)), []);
});

test('the layers test sees the imports', () => {
  const all = edges();
  assert.ok(all.length > 200, `only ${all.length} imports found`);
  assert.ok(all.some(([from, to]) => from === 'cuda/router.ts' && to === 'cuda/kernels/potrf/index.ts'));
});

/** [importer, imported] for the imports that load a module at run time (not `import type` / `export type`). */
test('the API reaches the GPU only through the backend and its router: no import of cuda/kernels or cuda/model', () => {
  const bad = edges().filter(([from, to]) => from.startsWith('api/') && /^cuda\/(kernels|model)\//.test(to));
  assert.deepEqual(bad.map(([from, to]) => `${from} -> ${to}`), []);
});

/** The family folders under src/cuda/kernels (common/ left out). */
function familyFolders(): Set<string> {
  return new Set(readdirSync(join(SRC, 'cuda/kernels'), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'common').map((e) => e.name));
}

/**
 * The pairs of families that are alternatives in one route of cuda/router.ts: GPU candidates of one
 * operation named as a family folder; and the array-level qr's tsqr against the qr family.
 */
function alternatives(): [string, string][] {
  const folders = familyFolders();
  const pairs: [string, string][] = [['qr', 'tsqr']];
  assert.ok(ARRAY_ROUTES.qr.some((c) => c.name === 'tsqr'), 'the array-level qr still routes to tsqr');
  for (const list of Object.values(ROUTES) as readonly (readonly { name: string; run?: unknown }[])[]) {
    const names = list.filter((c) => c.run !== undefined && folders.has(c.name)).map((c) => c.name);
    for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) pairs.push([names[i]!, names[j]!]);
  }
  return pairs;
}

test('the alternatives of the routes are read from the router', () => {
  const pairs = alternatives().map((p) => [...p].sort().join('/'));
  for (const p of ['gemm/tsm2', 'jacobi/tridiag', 'qr/tsqr']) assert.ok(pairs.includes(p), `${p} among ${pairs.join(', ')}`);
});

test('routing lives in the router: alternatives of one route do not import each other, and no third family imports both', () => {
  // At run time (dist/src): routing takes a call; a shared type is no route.
  const graph = runtimeGraph();
  const imports = new Map<string, Set<string>>();
  for (const [from, list] of graph) {
    const f = family(from);
    if (f === undefined || f === 'common') continue;
    const set = imports.get(f) ?? new Set<string>();
    for (const to of list) {
      const g = family(to);
      if (g !== undefined && g !== f && g !== 'common') set.add(g);
    }
    imports.set(f, set);
  }
  const bad: string[] = [];
  for (const [x, y] of alternatives()) {
    if (imports.get(x)?.has(y)) bad.push(`${x} imports ${y}`);
    if (imports.get(y)?.has(x)) bad.push(`${y} imports ${x}`);
    for (const [z, set] of imports) if (z !== x && z !== y && set.has(x) && set.has(y)) bad.push(`${z} imports both ${x} and ${y}`);
  }
  assert.deepEqual(bad, []);
});

/** The static imports and re-exports of every compiled module of dist/src: paths relative to it. */
function runtimeGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []);
  for (const file of files(DIST_SRC)) {
    const text = readFileSync(file, 'utf8');
    const to = [...text.matchAll(/^(?:import|export)\b[^;]*?from\s*'(\.[^']+)'|^import\s*'(\.[^']+)'/gm)]
      .map((m) => relative(DIST_SRC, normalize(join(dirname(file), (m[1] ?? m[2])!))));
    graph.set(relative(DIST_SRC, file), to);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one that imports itself (Tarjan). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no circle among the runtime imports of the compiled modules', () => {
  const graph = runtimeGraph();
  assert.ok(graph.size > 200 && [...graph.values()].some((to) => to.includes('cuda/kernels/trsm/launch.js')), 'the runtime graph reads the imports');
  assert.deepEqual(circles(graph).map((c) => c.join(' <-> ')), []);
});

test('the circle finder finds a circle', () => {
  const graph = new Map([['a.js', ['b.js']], ['b.js', ['c.js']], ['c.js', ['a.js', 'd.js']], ['d.js', []], ['e.js', ['e.js']]]);
  assert.deepEqual(circles(graph), [['a.js', 'b.js', 'c.js'], ['e.js']]);
});
