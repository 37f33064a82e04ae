/**
 * The element types' table (src/core/dtype-table.ts) is the one place that knows the element
 * types: the rest of src/ asks it for a fact (size, precision, a spelling) instead of comparing a
 * dtype with a string, so that a new type (complex64, complex128) is an entry there and the
 * compiler's list of incomplete tables.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { allocate, dtypeOfArray, DTYPE_BYTES, DTYPE_EPS } from '../../src/core/dtype.js';
import {
  ALL_COMPLEX_DTYPES, ALL_DTYPES, byPrecision, complexInfo, complexOf, cudaLiteral, cudaMath, dtypeInfo, dtypeOfArrayName, elementInfo,
  isComplexDType, isDType, isElementType, jsRound, storageInfo, storageOfArrayName,
} from '../../src/core/dtype-table.js';
import { cType, elementBytes, precisionLetter } from '../../src/cuda/kernels/common/precision.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** The files of src/ that may compare a dtype with a string: the table itself. */
const ALLOWED = new Set(['core/dtype-table.ts']);

/**
 * A comparison with a dtype's name: `=== 'float64'`, `'float32' !==`, `case 'float64'`, or a
 * `dtype` compared with any string but the integer types of info and pivot arrays.
 */
const COMPARISONS = [
  /[!=]==\s*'float\w*'/,
  /'float\w*'\s*[!=]==/,
  /\bcase\s+'float\w*'/,
  /dtype\s*[!=]==\s*'(?!int32'|int64')/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** `file:line: text` of every line of src/ (comments aside) that compares a dtype with a string. */
function comparisons(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const path = relative(SRC, file);
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line) || !COMPARISONS.some((re) => re.test(line))) return;
      found.set(path, [...(found.get(path) ?? []), `${path}:${i + 1}: ${line.trim()}`]);
    });
  }
  return found;
}

test('only the table compares dtypes with strings', () => {
  const found = comparisons();
  const outside = [...found].filter(([path]) => !ALLOWED.has(path)).flatMap(([, lines]) => lines);
  assert.deepEqual(outside, [], 'ask the element types\' table (src/core/dtype-table.ts) instead');
});

test('the comparison finder sees the forms it looks for', () => {
  const hits = (line: string): boolean => COMPARISONS.some((re) => re.test(line));
  for (const line of [
    "const d = dtype === 'float64';", "if (p.dtype !== 'float32') bad();", "'float64' === x", "case 'float32':", "dtype === 'complex64'",
  ]) assert.ok(hits(line), line);
  for (const line of ["if (a.dtype !== 'int32') throw", "dtype === other.dtype", "allocate('float64', n)", "dt = np.float64 if dtype == 'float64'"]) {
    assert.ok(!hits(line), line);
  }
});

test('the table is consistent', () => {
  assert.deepEqual(ALL_DTYPES, ['float64', 'float32']);
  for (const d of ALL_DTYPES) {
    const t = dtypeInfo(d);
    assert.equal(t.name, d);
    assert.equal(t.field, 'real');
    assert.equal(t.real, d);
    assert.equal(t.unitRoundoff * 2, t.eps);
    const round = t.jsRounds ? Math.fround : (x: number): number => x;
    assert.ok(round(1 + t.eps) > 1 && round(1 + t.unitRoundoff) === 1, `${d}: eps is the spacing above 1`);
    assert.equal(t.vectorLanes * t.bytes, 16);
    assert.equal(t.cuda.vector.members.length, t.vectorLanes);
    assert.equal(DTYPE_BYTES[d], t.bytes);
    assert.equal(DTYPE_EPS[d], t.eps);
    assert.equal(storageInfo(d).bytes, t.bytes);
    const a = allocate(d, 3);
    assert.equal(a.length, 3);
    assert.equal(a.BYTES_PER_ELEMENT, t.bytes);
    assert.equal(dtypeOfArray(a, 'a'), d);
    assert.equal(dtypeOfArrayName(t.array.name), d);
    assert.equal(storageOfArrayName(t.array.name), d);
    assert.equal(elementBytes(d), t.bytes);
    assert.equal(precisionLetter(d), t.letter);
    assert.equal(cType(d), t.cuda.type);
    assert.ok(isDType(d));
  }
  assert.equal(new Set(ALL_DTYPES.map((d) => dtypeInfo(d).letter)).size, ALL_DTYPES.length, 'precision letters are distinct');
  assert.equal(Math.fround(dtypeInfo('float32').eps), dtypeInfo('float32').eps);
  assert.equal(Math.fround(dtypeInfo('float32').safeMin), dtypeInfo('float32').safeMin);
  // The facts themselves, not only their agreement with each other.
  assert.deepEqual(ALL_DTYPES.map((d) => [d, dtypeInfo(d).bytes, dtypeInfo(d).eps, dtypeInfo(d).vectorLanes]), [['float64', 8, 2 ** -52, 2], ['float32', 4, 2 ** -23, 4]]);
  assert.equal(dtypeInfo('float64').safeMin, 2 ** -1022);
  assert.equal(dtypeInfo('float32').safeMin, 2 ** -126);
  for (const bad of ['int32', 'int64', 'complex64', 'toString', '__proto__', undefined, 8]) assert.ok(!isDType(bad), String(bad));
  assert.equal(dtypeOfArrayName('Int32Array'), undefined);
  assert.equal(storageOfArrayName('Int32Array'), 'int32');
  assert.equal(storageOfArrayName('BigInt64Array'), 'int64');
  assert.equal(storageOfArrayName('Uint8Array'), undefined);
  assert.ok(storageInfo('int64').create(2) instanceof BigInt64Array);
});

test('the helpers spell each precision', () => {
  assert.equal(cudaMath('float64', 'rsqrt'), 'rsqrt');
  assert.equal(cudaMath('float32', 'rsqrt'), 'rsqrtf');
  assert.equal(cudaLiteral('float64', '1e150'), '1e150');
  assert.equal(cudaLiteral('float32', '1e18'), '1e18f');
  assert.equal(byPrecision('float64', { double: 500, single: 40 }), 500);
  assert.equal(byPrecision('float32', { double: 500, single: 40 }), 40);
  assert.equal(jsRound('float64', 'x'), 'x');
  assert.equal(jsRound('float32', 'x'), 'Math.fround(x)');
  assert.equal(dtypeInfo('float32').cuda.eps, cudaLiteral('float32', String(dtypeInfo('float32').eps)));
  assert.equal(dtypeInfo('float64').cuda.eps, String(dtypeInfo('float64').eps));
});

test('the complex entries', () => {
  assert.deepEqual(ALL_COMPLEX_DTYPES, ['complex128', 'complex64']);
  assert.deepEqual(ALL_COMPLEX_DTYPES.map((c) => [c, complexInfo(c).bytes, complexInfo(c).real, complexInfo(c).letter]),
    [['complex128', 16, 'float64', 'z'], ['complex64', 8, 'float32', 'c']]);
  for (const c of ALL_COMPLEX_DTYPES) {
    const t = complexInfo(c);
    assert.equal(t.name, c);
    assert.equal(t.field, 'complex');
    assert.equal(t.bytes, t.parts * dtypeInfo(t.real).bytes, 'a complex element is two parts');
    assert.equal(t.precision, dtypeInfo(t.real).precision);
    assert.equal(complexOf(t.real), c);
    assert.ok(isComplexDType(c) && isElementType(c) && !isDType(c));
    assert.deepEqual(elementInfo(c), { ...t, spelling: t.spelling });
  }
  assert.deepEqual([complexInfo('complex128').spelling.cuda, complexInfo('complex64').spelling.cuda], ['cuDoubleComplex', 'cuFloatComplex']);
  assert.deepEqual([complexInfo('complex128').spelling.dataType, complexInfo('complex64').spelling.dataType], [5, 4]);
  for (const d of ALL_DTYPES) {
    const e = elementInfo(d);
    assert.deepEqual([e.name, e.bytes, e.field, e.real, e.parts, e.letter], [d, dtypeInfo(d).bytes, 'real', d, 1, dtypeInfo(d).letter]);
    assert.ok(isElementType(d) && !isComplexDType(d));
  }
  const letters = [...ALL_DTYPES, ...ALL_COMPLEX_DTYPES].map((d) => elementInfo(d).letter);
  assert.equal(new Set(letters).size, letters.length, 'letters are distinct');
  for (const bad of ['complex', 'complex32', 'float64', 'toString', undefined]) assert.ok(!isComplexDType(bad), String(bad));
});
