#!/usr/bin/env node
/**
 * The myriad command:
 *   myriad info                     backends found, and why one is unusable
 *   myriad demo [--backend B] [--dtype D]
 *                                   the main job (npm start): batched posv and gesv, with residuals
 *   myriad bench <op> [--backend B] [--dtype D] [--sizes 2,4,8] [--batch N] [--repeats R] [--json FILE]
 *                     (--dtype complex128|complex64: gemm, potrf, getrf, posv, gesv, trsm)
 *                     [--format text|markdown]
 *                     [--devices all|0,1]   several GPUs: one device, then all listed (src/bench/multi.ts)
 *                     [--call-ms 0.25,1]    with --devices: batches sized to these one-GPU call lengths
 *                     [--host-outputs duplex|after-all]  with --devices: how host-start outputs come back
 *   myriad bench gemm|potrf|trsm|posv|getrf|gesv|syrk|trtri --vbatched a|b [--dtype D] [--ways vbatched,per-size,...]
 *                                   one variable-size batch: class kernels beside the per-size path, the vendor's
 *                                   loop, the device form (variableDevice) and the uniform reference (src/bench/vbatched.ts)
 *   myriad warm <op> --sizes 8,16,128 [--dtype D] [--batch N] [--json FILE]
 *                                   compiles those shapes' kernels into the disk cache, in parallel (api/warm.ts)
 *   myriad --version                the installed version
 */
import { accessSync, closeSync, constants, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { probeBackends, type BackendChoice } from './api/backends.js';
import { open } from './api/open.js';
import type { Context } from './api/context.js';
import { parseEnumValue } from './core/enums.js';
import { MyriadError, nearestName } from './core/errors.js';
import type { DType, ElementType } from './core/dtype.js';
import { elementInfo, isElementType } from './core/dtype-table.js';
import { DEMO_COLUMNS, runDemo, warmDemoAhead } from './bench/demo.js';
import { BENCH_COLUMNS, runBench, type BenchRow } from './bench/run.js';
import { formatTable, TABLE_STYLES, type TableStyle } from './bench/table.js';
import { BENCH_OPS, benchWorkload, type BenchOp } from './bench/workloads.js';
import { COMPLEX_BENCH_OPS } from './bench/complex-workloads.js';
import { benchExtras } from './bench/extras.js';
import './bench/cuda.js'; // registers the CUDA limits and vendor baselines
import './bench/latency.js'; // myriad bench latency (CUDA)
import './bench/cpu.js'; // the CPU's roofline and numpy baseline
import { MULTI_COLUMNS, runMultiBench } from './bench/multi.js';
import { parseDevices } from './cuda/multi/open.js';
import { openMultiDevice } from './api/multi-open.js';
import type { MultiDeviceContext } from './api/multi-context.js';
import type { DeviceSelection } from './cuda/multi/index.js';
import { parseWarmOp, type WarmResult } from './api/warm.js';
import { parseVbatchedWays, VBATCHED_WAYS } from './bench/vbatched-table.js';

const USAGE = `usage:
  myriad info
  myriad demo  [--backend auto|cpu|cuda|reference] [--dtype float64|float32|both]
  myriad bench <op> [--backend auto|cpu|cuda|reference] [--dtype float64|float32|both|complex128|complex64] [--sizes 2,4,8]
               (complex128, complex64: ${COMPLEX_BENCH_OPS.join(', ')}) [--batch N] [--repeats R] [--json FILE] [--devices all|0,1] [--format text|markdown]
               [--devices all|0,1 --call-ms 0.25,1]: batches sized to these one-GPU call lengths (ms)
               [--devices all|0,1 --host-outputs duplex|after-all]: how host-start outputs come back
  myriad bench gemm|potrf|trsm|posv|getrf|gesv|syrk|trtri --vbatched a|b [--dtype float64|float32|both]
               [--ways ${VBATCHED_WAYS.join(',')}] (default: all)
               (a: 200,000 matrices of sizes log-uniform in 1-64; b: 20,000 in 1-512): host-sized
               classes (launches: class + blocked driver), per size, the vendor's loop (and gemm's grouped
               call), the device form (variableDevice) and the uniform reference (order
               round(E[n^3]/E[n^2]), the same flops and bytes: the rates as a fraction of its rate)
  myriad warm  <op> --sizes 8,16,128 [--dtype float64|float32|both] [--batch N] [--json FILE]
  myriad --version
  ops: ${benchOps().join(', ')}`;

/** Every op \`myriad bench\` takes: the workloads and the registered extras (tsm2, tsqr, latency, ...), one list everywhere. */
function benchOps(): string[] {
  return [...BENCH_OPS, ...benchExtras.names];
}

/** Array-level and numpy names of the LAPACK-level ops a benchmark measures. */
const OP_ALIASES: Readonly<Record<string, string>> = {
  eigh: 'syev', eigvalsh: 'syev-values', svd: 'gesvd', svdvals: 'gesvd', cholesky: 'potrf', lu: 'getrf', solve: 'gesv',
  lstsq: 'gels', matmul: 'gemm', inv: 'poti', choleskysolve: 'potrs', triangularsolve: 'trsm',
};

/** The op, or an error that suggests the nearest one (by spelling, or the LAPACK name of an array-level one). */
function benchOp(op: string): string {
  const ops = benchOps();
  if (ops.includes(op)) return op;
  const near = OP_ALIASES[op.toLowerCase()] ?? nearestName(op, ops);
  const why = OP_ALIASES[op.toLowerCase()] !== undefined ? ` (benchmarks use the LAPACK-level names: ${op} runs on ${near})` : '';
  throw new MyriadError('ENUM', `unknown benchmark op '${op}'${near === undefined ? '' : `; did you mean '${near}'?${why}`} (one of ${ops.join(', ')})`, 'op');
}

/** The version in the package.json beside dist/ (the one npm installed). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

function info(): void {
  const status = probeBackends();
  for (const [name, s] of Object.entries(status)) {
    console.log(`${name.padEnd(5)} ${s.usable ? 'usable' : 'unusable'}: ${s.usable ? s.detail ?? '' : s.reason ?? ''}`);
  }
  const ctx = open({ backend: 'auto' });
  console.log(`auto  -> ${ctx.describe()}`);
}

/** The largest matrix order a benchmark takes (one 32768 x 32768 float64 matrix is 8 GiB; MAX_ELEMENTS bounds a batch). */
const MAX_SIZE = 32768;
/** The most elements one benchmark array may hold (2^31: 16 GiB of float64). */
const MAX_ELEMENTS = 2 ** 31;

/** A comma-separated list of matrix orders, each written in digits, 1 <= n <= MAX_SIZE. */
function parseSizes(text: string | undefined, fallback: number[]): number[] {
  if (text === undefined) return fallback;
  const parts = text.split(',').map((s) => s.trim());
  const bad = parts.find((p) => !/^[0-9]+$/.test(p) || Number(p) < 1 || Number(p) > MAX_SIZE);
  if (bad !== undefined)
    throw new MyriadError('INVALID_ARGUMENT', `expected a comma-separated list of sizes from 1 to ${MAX_SIZE}, got ${JSON.stringify(text)} (${bad === '' ? 'an empty entry' : `'${bad}'`})`, '--sizes');
  return parts.map(Number);
}

function parsePositive(text: string | undefined, argument: string): number | undefined {
  if (text === undefined) return undefined;
  const n = /^[0-9]+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new MyriadError('INVALID_ARGUMENT', `expected a positive integer, got ${JSON.stringify(text)}`, argument);
  return n;
}

function writeJson(file: string, rows: readonly unknown[]): void {
  try {
    writeFileSync(file, JSON.stringify(rows, null, 2) + '\n');
  } catch (e) {
    throw new MyriadError('INVALID_ARGUMENT', `cannot write ${JSON.stringify(file)}: ${(e as Error).message}`, '--json');
  }
  console.error(`wrote ${rows.length} rows to ${file}`);
}

/** --json FILE: checked before the benchmark runs, so a long run never ends in a failed write. */
function checkOutputFile(file: string | undefined): void {
  if (file === undefined) return;
  const fail = (why: string): never => { throw new MyriadError('INVALID_ARGUMENT', `cannot write ${JSON.stringify(file)}: ${why}`, '--json'); };
  if (file === '') fail('empty file name');
  const path = resolve(file);
  const dir = dirname(path);
  const dirStat = statSync(dir, { throwIfNoEntry: false });
  if (!dirStat) fail(`directory ${dir} does not exist`);
  if (!dirStat!.isDirectory()) fail(`${dir} is not a directory`);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) fail('it is a directory');
  try {
    if (stat) closeSync(openSync(path, 'r+')); // opens for writing without truncating
    else accessSync(dir, constants.W_OK);
  } catch (e) {
    fail(`${stat ? 'the file' : `directory ${dir}`} is not writable (${(e as { code?: string }).code ?? String(e)})`);
  }
}

function dtypes(text: string | undefined): DType[] {
  const d = parseEnumValue(text ?? 'float64', ['float64', 'float32', 'both'] as const, '--dtype');
  return d === 'both' ? ['float64', 'float32'] : [d];
}

/** The dtypes of `myriad bench <op>`: the real ones, or a complex type (interleaved pairs; workloads.ts says which ops have one). */
function benchDtypes(text: string | undefined): ElementType[] {
  const d = parseEnumValue(text ?? 'float64', ['float64', 'float32', 'both', 'complex128', 'complex64'] as const, '--dtype');
  return d === 'both' ? ['float64', 'float32'] : [d];
}

function backendFor(backend: string | undefined): BackendChoice {
  return parseEnumValue(backend ?? 'auto', ['auto', 'cpu', 'cuda', 'reference'] as const, '--backend');
}

function openFor(backend: string | undefined): Context {
  return open({ backend: backendFor(backend) });
}

/**
 * A size the host cannot hold fails here, naming --sizes, rather than in an allocation deep inside
 * the run: the largest row's data is generated on the host and kept beside a pristine copy and the
 * output (about three arrays of n x n x batch elements).
 */
function checkHostMemory(sizes: readonly number[], batch: number | undefined, dtype: string | undefined): void {
  if (sizes.length === 0) return;
  const n = Math.max(...sizes);
  const bytes = 3 * n * n * (batch ?? 1) * (isElementType(dtype) ? elementInfo(dtype).bytes : 8);
  if (bytes > totalmem())
    throw new MyriadError('INVALID_ARGUMENT', `${batch ?? 1} ${(batch ?? 1) === 1 ? 'matrix' : 'matrices'} of ${n}x${n} need${(batch ?? 1) === 1 ? 's' : ''} about ${(bytes / 2 ** 30).toFixed(1)} GiB of host memory (the data, a pristine copy and the output), more than this machine's ${(totalmem() / 2 ** 30).toFixed(1)} GiB`, '--sizes');
}

async function bench(op: string | undefined, values: { [K in "backend" | "dtype" | "sizes" | "batch" | "repeats" | "json" | "devices" | "format" | "vbatched" | "ways" | "call-ms" | "host-outputs"]?: string }): Promise<void> {
  if (op === undefined) throw new MyriadError('INVALID_ARGUMENT', `which operation? one of ${benchOps().join(', ')}`, 'op');
  benchOp(op);
  const style = parseEnumValue(values.format ?? 'text', TABLE_STYLES, '--format') as TableStyle;
  checkOutputFile(values.json);
  if (values.ways !== undefined && values.vbatched === undefined) throw new MyriadError('INVALID_ARGUMENT', '--ways chooses the ways of a --vbatched run: give --vbatched a|b', '--ways');
  for (const flag of ['call-ms', 'host-outputs'] as const)
    if (values[flag] !== undefined && values.devices === undefined) throw new MyriadError('INVALID_ARGUMENT', `belongs to a --devices run (several GPUs): give --devices all|0,1`, `--${flag}`);
  if (values.vbatched !== undefined) {
    parseVbatchedWays(values.ways);   // a bad list fails before a backend opens
    const ctx = openFor(values.backend);
    console.error(`backend: ${ctx.describe()}`);
    const rows = await benchExtras.vbatched(op, values.vbatched, ctx, { dtypes: dtypes(values.dtype), sizes: undefined, json: values.json, style, ways: values.ways });
    if (values.json) writeJson(values.json, rows);
    return;
  }
  if (values.devices !== undefined) return benchDevices(op, values, style);
  const extra = benchExtras.names.includes(op);
  const sizes = extra ? [] : parseSizes(values.sizes, [2, 4, 8, 16, 32]);
  const batch = parsePositive(values.batch, '--batch');
  const repeats = parsePositive(values.repeats, '--repeats');
  // A complex element is two floats of the array that holds the pairs.
  const parts = isElementType(values.dtype) ? elementInfo(values.dtype).parts : 1;
  const tooBig = batch === undefined ? undefined : sizes.find((n) => n * n * batch * parts > MAX_ELEMENTS);
  if (tooBig !== undefined && batch !== undefined)
    throw new MyriadError('INVALID_ARGUMENT', `${batch} matrices of ${tooBig}x${tooBig} need ${tooBig * tooBig * batch * parts} ${parts === 2 ? 'floats (re, im pairs)' : 'elements'}, more than one array holds (${MAX_ELEMENTS})`, '--batch');
  checkHostMemory(sizes, batch, values.dtype);
  // An op without a workload of a dtype (complex getrs ...) fails here, before a backend opens.
  if (!extra) for (const dtype of benchDtypes(values.dtype)) benchWorkload(op, dtype);
  const ctx = openFor(values.backend);
  console.error(`backend: ${ctx.describe()}`);
  let rows: BenchRow[] | Record<string, unknown>[];
  if (extra) {
    rows = await benchExtras.run(op, ctx, { dtypes: dtypes(values.dtype), sizes: values.sizes, json: values.json, style });
  } else {
    const limits = benchExtras.limits(ctx);
    const vendor = benchExtras.vendor(ctx);
    const benchRows: BenchRow[] = [];
    for (const dtype of benchDtypes(values.dtype)) {
      benchRows.push(...runBench(ctx, {
        op: op as BenchOp, dtype, sizes, ...(batch ? { batch } : {}), ...(repeats ? { repeats } : {}),
        ...(limits ? { limits } : {}), ...(vendor ? { vendor } : {}),
        targetBytes: benchTargetBytes(ctx.backend, op as BenchOp),
      }));
    }
    rows = namedBackend(benchRows, values.backend);
    console.log(formatTable(rows, BENCH_COLUMNS, style));
  }
  if (values.json) writeJson(values.json, rows);
}

/** Rows of the reference backend say so in their backend column (its context's backend is 'cpu', as the fast one's). */
function namedBackend<R extends { backend: string }>(rows: R[], choice: string | undefined): R[] {
  return choice === 'reference' ? rows.map((r) => ({ ...r, backend: 'reference' })) : rows;
}

/** --devices: resident rows on one device then all listed, plus host-start rows (per-device and total throughput, scaling efficiency). */
function benchDevices(op: string, values: { [K in "dtype" | "sizes" | "batch" | "repeats" | "json" | "devices" | "call-ms" | "host-outputs"]?: string }, style: TableStyle): void {
  const batch = parsePositive(values.batch, '--batch');
  const repeats = parsePositive(values.repeats, '--repeats');
  const callMs = parseCallMs(values['call-ms']);
  if (callMs && batch) throw new MyriadError('INVALID_ARGUMENT', 'give --batch or --call-ms, not both', '--call-ms');
  const options = {
    op: parseEnumValue(benchOp(op), BENCH_OPS, 'op'), dtypes: dtypes(values.dtype), sizes: parseSizes(values.sizes, [8, 16, 32]),
    ...(batch ? { batch } : {}), ...(repeats ? { repeats } : {}), ...(callMs ? { callMs } : {}),
    ...(values['host-outputs'] !== undefined ? { hostOutputs: parseEnumValue(values['host-outputs'], ['duplex', 'after-all'] as const, '--host-outputs') } : {}),
  };
  // Several GPUs or none: where CUDA cannot open, the error names --devices (the option that asked for it).
  const open = (set: DeviceSelection): MultiDeviceContext => {
    try {
      return openMultiDevice(set);
    } catch (e) {
      if (e instanceof MyriadError && e.argument === 'backend') throw new MyriadError(e.code, `runs on GPUs: ${e.message.slice('backend: '.length)}`, '--devices');
      throw e;
    }
  };
  const rows = runMultiBench(parseDevices(values.devices!), options, open);
  console.log(formatTable(rows, MULTI_COLUMNS, style));
  if (values.json) writeJson(values.json, rows);
}

/** --call-ms 0.25,1: positive milliseconds, or undefined when absent. */
function parseCallMs(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const list = text.split(',').map((x) => Number(x.trim()));
  if (list.length === 0 || list.some((x) => !Number.isFinite(x) || x <= 0))
    throw new MyriadError('INVALID_ARGUMENT', `expected a comma-separated list of positive milliseconds, got '${text}'`, '--call-ms');
  return list;
}

/** `myriad warm`: one line per dtype (kernels needed, found cached, compiled, seconds), and --json the reports. */
async function warm(op: string | undefined, values: { [K in 'backend' | 'dtype' | 'sizes' | 'batch' | 'json']?: string }): Promise<void> {
  const which = parseWarmOp(op);
  if (values.sizes === undefined) throw new MyriadError('INVALID_ARGUMENT', 'which sizes? --sizes 8,16,128', '--sizes');
  const sizes = parseSizes(values.sizes, []);
  const batch = parsePositive(values.batch, '--batch');
  checkOutputFile(values.json);
  const ctx = openFor(values.backend);
  console.error(`backend: ${ctx.describe()}`);
  const results: WarmResult[] = [];
  for (const dtype of dtypes(values.dtype)) {
    const r = await ctx.warm(which, { sizes, dtype, ...(batch ? { count: batch } : {}) });
    results.push(r);
    console.log(r.note ?? `warm ${which} ${dtype} n=${sizes.join(',')}: ${r.kernels} kernels, ${r.cached} cached, ${r.compiled} compiled${r.failed ? `, ${r.failed} failed (the call compiles and reports them)` : ''} in ${(r.ms / 1000).toFixed(2)} s (compile ${(r.compileMs / 1000).toFixed(2)} s summed over the workers)`);
  }
  if (values.json) writeJson(values.json, results);
}

const OPTIONS = {
  backend: { type: 'string' }, dtype: { type: 'string' }, sizes: { type: 'string' },
  batch: { type: 'string' }, repeats: { type: 'string' }, json: { type: 'string' }, devices: { type: 'string' }, format: { type: 'string' }, vbatched: { type: 'string' }, ways: { type: 'string' }, 'call-ms': { type: 'string' }, 'host-outputs': { type: 'string' }, help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type OptionName = keyof typeof OPTIONS;

/**
 * Each command's options (help and version aside: any other is a usage error, not ignored) and the
 * words it takes after its name (bench and warm: the operation).
 */
const COMMANDS: { readonly [command: string]: { readonly options: readonly OptionName[]; readonly words: number } } = {
  info: { options: [], words: 0 },
  demo: { options: ['backend', 'dtype'], words: 0 },
  bench: { options: ['backend', 'dtype', 'sizes', 'batch', 'repeats', 'json', 'devices', 'format', 'vbatched', 'ways', 'call-ms', 'host-outputs'], words: 1 },
  warm: { options: ['backend', 'dtype', 'sizes', 'batch', 'json'], words: 1 },
  help: { options: [], words: 0 },
};

/**
 * The command line's shape, before anything runs: a known command (also with --version), no option
 * twice (node's parseArgs keeps the last silently), only the command's options, no extra words.
 */
function checkCommandLine(command: string | undefined, words: readonly string[], tokens: readonly { kind: string; name?: string; rawName?: string }[]): void {
  if (command !== undefined && !(command in COMMANDS))
    throw new MyriadError('INVALID_ARGUMENT', `unknown command '${command}': one of info, demo, bench, warm, help`, 'command');
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === undefined) continue;
    if (seen.has(t.name)) throw new MyriadError('INVALID_ARGUMENT', 'given twice: give each option once', `--${t.name}`);
    seen.add(t.name);
    if (command === undefined || t.name === 'help' || t.name === 'version') continue;
    const allowed = COMMANDS[command]!.options;
    if (!allowed.includes(t.name as OptionName))
      throw new MyriadError('INVALID_ARGUMENT', `is not an option of 'myriad ${command}' (${allowed.length === 0 ? 'it takes none' : `it takes ${allowed.map((o) => `--${o}`).join(', ')}`})`, `--${t.name}`);
  }
  const expected = command === undefined ? undefined : COMMANDS[command]!.words;
  if (expected !== undefined && words.length > expected)
    throw new MyriadError('INVALID_ARGUMENT', `unexpected '${words[expected]}' after 'myriad ${command}${expected > 0 ? ` ${words[0]}` : ''}' ('myriad help' shows the usage)`, 'arguments');
}

/** node:util's parseArgs, its errors (unknown option, missing value) turned into one-line usage errors. */
function parseCommandLine(argv: string[]): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; tokens: true; options: typeof OPTIONS }>> {
  try {
    return parseArgs({ args: argv, allowPositionals: true, tokens: true, options: OPTIONS });
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw e;
    const text = (e as Error).message;
    const flag = /'(-[^' ]+)/.exec(text)?.[1] ?? 'arguments';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const near = flag.startsWith('--') ? nearestName(flag, Object.keys(OPTIONS).map((k) => `--${k}`)) : undefined;
      throw new MyriadError('INVALID_ARGUMENT', `unknown option${near ? `; did you mean ${near}?` : ''} ('myriad help' lists the options)`, flag);
    }
    throw new MyriadError('INVALID_ARGUMENT', text.replace(/\s*\n\s*/g, ' '), flag);
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values, tokens } = parseCommandLine(argv);
  const [command, ...rest] = positionals;
  checkCommandLine(command, rest, tokens);
  if (values.version) {
    console.log(version());
    return;
  }
  if (values.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return;
  }
  switch (command) {
    case 'info':
      info();
      return;
    case 'demo': {
      const choice = backendFor(values.backend);
      if (choice === 'auto' || choice === 'cuda') warmDemoAhead(dtypes(values.dtype));
      const ctx = openFor(values.backend);
      console.error(`backend: ${ctx.describe()}`);
      for (const dtype of dtypes(values.dtype)) console.log(formatTable(namedBackend(await runDemo(ctx, dtype), values.backend), DEMO_COLUMNS));
      return;
    }
    case 'bench':
      await bench(rest[0], values);
      return;
    case 'warm':
      await warm(rest[0], values);
      return;
    default:
      throw new Error(`unreachable: checkCommandLine admits '${command}'`);
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e: unknown) => {
    // A usage error is one line; anything else is a bug or a machine failure: its stack helps.
    console.error(e instanceof MyriadError ? `myriad: ${e.message.replace(/\s*\n\s*/g, ' ')}` : e);
    process.exit(e instanceof MyriadError && e.code !== 'CUDA' && e.code !== 'NVRTC' ? 2 : 1);
  },
);

/**
 * Bytes of matrices per benchmark call: the measuring conditions of BENCHMARKS.md (about 1 GB per gemm call,
 * 0.5 GB for the factorisations and solves) on a GPU, 16 MiB on the CPU reference.
 */
function benchTargetBytes(backend: string, op: BenchOp): number {
  if (backend === 'cpu') return 16 << 20;
  return op === 'gemm' ? 1 << 30 : 512 << 20;
}
