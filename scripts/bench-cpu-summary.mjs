#!/usr/bin/env node
// Joins the JSON rows of scripts/bench-cpu.sh into one markdown table per op: ours and numpy on
// one thread and on all cores, the ratios, the roofline, and the speed-up over the reference.
// Usage: node scripts/bench-cpu-summary.mjs [dir] [dir of the all-cores rows, default dir]
import { existsSync, readFileSync } from 'node:fs';
const dir = process.argv[2] ?? '/tmp/myriad-bench-cpu';
const allDir = process.argv[3] ?? dir;
const read = (d, f) => (existsSync(`${d}/${f}`) ? JSON.parse(readFileSync(`${d}/${f}`, 'utf8')) : []);
const load = (f) => read(f.includes('-all') ? allDir : dir, f);
const key = (r) => `${r.dtype}/${r.n}`;
const f1 = (x) => (x === undefined || !Number.isFinite(x) ? '-' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
for (const op of (process.env.OPS ?? 'gemm potrf posv getrf gesv potrs getrs trsm').split(' ')) {
  const one = load(`${op}-1t.json`), all = new Map(load(`${op}-all.json`).map((r) => [key(r), r]));
  const ref = new Map(load(`${op}-ref.json`).map((r) => [key(r), r]));
  if (one.length === 0) continue;
  console.log(`\n#### ${op}\n`);
  console.log('| dtype | n | 1 thr GFLOP/s | numpy 1 thr | x numpy | 2 thr GFLOP/s | numpy 2 thr | x numpy | %roof (2 thr) | reference 1 thr | x reference |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of one) {
    const a = all.get(key(r)), f = ref.get(key(r));
    console.log(`| ${r.dtype} | ${r.n} | ${f1(r.gflops)} | ${f1(r.vendorGflops)} | ${f1(r.speedup)} | ${f1(a?.gflops)} | ${f1(a?.vendorGflops)} | ${f1(a?.speedup)} | ${f1(a?.roofline)} | ${f1(f?.gflops)} | ${f ? f1(r.gflops / f.gflops) : '-'} |`);
  }
}
