// `npm test`'s build: every TypeScript file of src/, test/, scripts/ and examples/ transpiled to dist/
// file by file (TypeScript's transpileModule: types stripped, nothing checked, no declarations), on
// two threads. The compiler over everything (`npm run build`) took 28-30 s of a two-core machine's
// `npm test`, half of it checking types; the transpile takes 11-14 s there. `npm run check` runs the
// compiler (every file type-checked, the declarations emitted) and then the tests of the package as
// published (test/types/: declarations, tarball); CI runs it beside `npm test`. `verbatimModuleSyntax`
// in tsconfig.json makes every file's output independent of the others' types, so a transpiled file is
// what the compiler emits. A file is transpiled again only where its source is newer than its output
// or than this script and the configuration. Plain JavaScript: it runs before dist/ exists.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'test', 'scripts', 'examples'];
/** Fewer stale files than this are transpiled on one thread. */
const ONE_THREAD_MAX = 64;

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

function* typescriptFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* typescriptFiles(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The tsconfig.json options that decide the output (target, source maps), for transpileModule. */
function compilerOptions() {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const { options, errors } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  if (errors.length > 0) throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  // ES modules throughout (package.json says "type": "module"): under NodeNext transpileModule, which
  // never reads package.json, would emit CommonJS.
  return { ...options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, declaration: false, incremental: false, noEmit: false };
}

/** The source files whose outputs are missing or older than they, this script or tsconfig.json. */
function outOfDate(outDir) {
  const configTime = Math.max(mtime(join(root, 'tsconfig.json')), mtime(fileURLToPath(import.meta.url)));
  const stale = [];
  for (const dir of SOURCES) {
    for (const source of typescriptFiles(join(root, dir))) {
      const outTime = mtime(join(outDir, relative(root, source).replace(/\.ts$/, '.js')));
      if (outTime < mtime(source) || outTime < configTime) stale.push(source);
    }
  }
  return stale;
}

/** Transpiles `sources` into outDir; returns the syntax errors met (their files are not written). */
function transpile(sources, options, outDir) {
  const errors = [];
  for (const source of sources) {
    const rel = relative(root, source).replace(/\.ts$/, '.js');
    const out = join(outDir, rel);
    const { outputText, sourceMapText, diagnostics } = ts.transpileModule(readFileSync(source, 'utf8'), { fileName: source, compilerOptions: options, reportDiagnostics: true });
    // The file's own (syntax) errors; those of the options, repeated for every file, are not the file's.
    const own = (diagnostics ?? []).filter((d) => d.file !== undefined && d.category === ts.DiagnosticCategory.Error);
    if (own.length > 0) {
      errors.push(ts.formatDiagnostics(own, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }).trimEnd());
      continue;
    }
    mkdirSync(dirname(out), { recursive: true });
    if (sourceMapText !== undefined) {
      // transpileModule names the map's files as if output and source sat side by side: point them at dist/.
      const map = JSON.parse(sourceMapText);
      map.file = rel.split('/').pop();
      map.sources = [relative(dirname(out), source)];
      writeFileSync(`${out}.map`, JSON.stringify(map));
    }
    writeFileSync(out, outputText);
  }
  return errors;
}

if (isMainThread) {
  const options = compilerOptions();
  const outDir = options.outDir ?? join(root, 'dist');
  const stale = outOfDate(outDir);
  // Two shares of about equal bytes, the larger files dealt out first, each to the lighter share; a
  // few files (a rebuild after an edit) on this thread alone: a second thread loads TypeScript again.
  const shares = [{ files: [], bytes: 0 }, { files: [], bytes: 0 }];
  for (const [file, bytes] of stale.map((f) => [f, statSync(f).size]).sort((x, y) => y[1] - x[1])) {
    const share = stale.length < ONE_THREAD_MAX || shares[0].bytes <= shares[1].bytes ? shares[0] : shares[1];
    share.files.push(file);
    share.bytes += bytes;
  }
  const worker = shares[1].files.length > 0 ? new Worker(fileURLToPath(import.meta.url), { workerData: { files: shares[1].files, options, outDir } }) : undefined;
  const other = worker && new Promise((done, fail) => {
    worker.on('message', done);
    worker.on('error', fail);
  });
  try {
    const errors = [...transpile(shares[0].files, options, outDir), ...((await other) ?? [])];
    if (errors.length > 0) {
      console.error(`build: ${errors.length} file(s) not transpiled:\n${errors.join('\n')}`);
      process.exitCode = 1;
    }
  } catch (e) {
    console.error(`build: transpiling failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
} else {
  parentPort.postMessage(transpile(workerData.files, workerData.options, workerData.outDir));
}
