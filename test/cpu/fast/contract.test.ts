/**
 * The cpu-fast backend's contract, read from its sources: every WebAssembly opcode is named from
 * the one table (src/cpu-fast/wasm/opcodes.ts), never written as a number.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../src/cpu-fast/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

const text = (file: string): string => readFileSync(file, 'utf8');
const where = (file: string): string => relative(ROOT, file);

test('no WebAssembly opcode is written as a number outside wasm/opcodes.ts', () => {
  const raw = /\.(?:op|simd|mem|simdMem|simdMemLane)\(\s*(?:0x[0-9a-f]+|\d+)\b/gi;
  const constants = /^\s*(?:export\s+)?const\s+[A-Z0-9_]+\s*=\s*0x[0-9a-f]+\b/gim;
  const found: string[] = [];
  for (const file of sources(ROOT)) {
    if (where(file) === join('wasm', 'opcodes.ts')) continue;
    for (const m of text(file).matchAll(raw)) found.push(`${where(file)}: ${m[0]}`);
    for (const m of text(file).matchAll(constants)) found.push(`${where(file)}: ${m[0].trim()}`);
  }
  assert.deepEqual(found, []);
});

test('the environment is read in one place (context.ts), never at import time elsewhere', () => {
  const found: string[] = [];
  for (const file of sources(ROOT)) {
    if (where(file) === 'context.ts') continue;
    for (const line of text(file).split('\n')) if (/process\.env\b/.test(line) && !/^\s*(\*|\/\/)/.test(line)) found.push(`${where(file)}: ${line.trim()}`);
  }
  assert.deepEqual(found, []);
});

test('plans are pure: plan/ imports types, the tuning table, the element types\' table and the kernels\' parameter helpers only', () => {
  const found: string[] = [];
  for (const file of sources(join(ROOT, 'plan'))) {
    for (const m of text(file).matchAll(/^import (?!type )[^;]*from '([^']+)'/gm)) {
      if (!/^\.\.\/kernels\/[\w-]+\.js$/.test(m[1]!) && m[1] !== '../../core/dtype-table.js') found.push(`${where(file)}: ${m[1]}`);
    }
    if (/\blet\b|process\.|cpuTuning\(/.test(text(file))) found.push(`${where(file)}: module state or the environment`);
  }
  assert.deepEqual(found, []);
});
