// `npm start`: the demo (`myriad demo`), built first where dist/ is missing or a source changed since
// the last build this script made (a fresh clone's first start builds; installs run no script of
// ours). Running the TypeScript compiler on every start would cost 2-3 s of a demo that takes about
// as long. `--build`: build where needed, run nothing. Plain JavaScript: it runs before dist/ exists.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Written after each build this script runs (the compiler's own .tsbuildinfo is not rewritten by a build that changes nothing).
const stamp = join(root, 'dist', '.built');

/** The newest modification time of the TypeScript sources and the build's configuration. */
function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ['src', 'test', 'scripts', 'examples']) visit(join(root, dir));
  for (const file of ['tsconfig.json', 'package.json']) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

function built() {
  try {
    return statSync(stamp).mtimeMs >= newestSource() && statSync(join(root, 'dist', 'src', 'cli.js')).isFile();
  } catch {
    return false;
  }
}

if (!built()) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', root], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
if (process.argv[2] === '--build') process.exit(0);
process.argv = [process.argv[0], join(root, 'dist', 'src', 'cli.js'), 'demo', ...process.argv.slice(2)];
await import(pathToFileURL(join(root, 'dist', 'src', 'cli.js')).href);
