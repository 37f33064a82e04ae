// `npm test`'s build: the library by the TypeScript compiler (type-checked, with the declarations
// the package ships) and, at the same time on the other core, the tests, scripts and examples
// transpiled file by file (TypeScript's transpileModule: types stripped, nothing checked). The
// compiler over everything (`npm run build`) took 28-30 s of a two-core machine, 14 of them checking
// code that only the tests run; the library alone takes about 12 s and the transpile about 6 s beside
// it. `npm run typecheck` checks all of it (CI runs it before `npm test`); `verbatimModuleSyntax` in
// tsconfig.json makes every file's output independent of the others' types, so a transpiled file is
// what the compiler would emit. A file is transpiled again only where its source is newer than its
// output or than this script and the configuration. Plain JavaScript: it runs before dist/ exists.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TRANSPILED = ['test', 'scripts', 'examples'];

/** The library: the compiler over src/ alone (tsconfig.lib.json), in a child process. */
function buildLibrary() {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return new Promise((done) => {
    const child = spawn(process.execPath, [tsc, '-p', join(root, 'tsconfig.lib.json')], { stdio: 'inherit' });
    child.on('close', (status) => done(status ?? 1));
  });
}

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

/** The tsconfig.json options that decide the output (target, module, source maps), for transpileModule. */
function compilerOptions() {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const { options, errors } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  if (errors.length > 0) throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  // ES modules throughout (package.json says "type": "module"): under NodeNext transpileModule, which
  // never reads package.json, would emit CommonJS.
  return { ...options, module: ts.ModuleKind.ESNext, declaration: false, incremental: false, noEmit: false };
}

/** Transpiles the out-of-date files of TRANSPILED into dist/; returns how many it wrote. */
function transpileRest() {
  const options = compilerOptions();
  const outDir = options.outDir ?? join(root, 'dist');
  const configTime = Math.max(mtime(join(root, 'tsconfig.json')), mtime(fileURLToPath(import.meta.url)));
  let written = 0;
  for (const dir of TRANSPILED) {
    for (const source of typescriptFiles(join(root, dir))) {
      const rel = relative(root, source).replace(/\.ts$/, '.js');
      const out = join(outDir, rel);
      const outTime = mtime(out);
      if (outTime >= mtime(source) && outTime >= configTime) continue;
      const { outputText, sourceMapText } = ts.transpileModule(readFileSync(source, 'utf8'), { fileName: source, compilerOptions: options });
      mkdirSync(dirname(out), { recursive: true });
      if (sourceMapText !== undefined) {
        // transpileModule names the map's files as if output and source sat side by side: point them at dist/.
        const map = JSON.parse(sourceMapText);
        map.file = `${rel.split('/').pop()}`;
        map.sources = [relative(dirname(out), source)];
        writeFileSync(`${out}.map`, JSON.stringify(map));
      }
      writeFileSync(out, outputText);
      written++;
    }
  }
  return written;
}

const library = buildLibrary();
let failed = false;
try {
  transpileRest();
} catch (e) {
  console.error(`build: transpiling the tests, scripts and examples failed: ${e instanceof Error ? e.message : String(e)}`);
  failed = true;
}
const status = await library;
process.exitCode = status !== 0 ? status : failed ? 1 : 0;
