/**
 * Which compiled test files the GPU suite runs: every `*.test.js` under the targets, less those left
 * over from an earlier build. tsc never deletes its old outputs, so a test file renamed or split in
 * the sources leaves its .js behind, which would run tests that no longer exist.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The TypeScript source of a compiled file under a `dist/` folder (dist/test/gpu/x.test.js -> test/gpu/x.test.ts), or undefined outside one. */
export function sourceOf(path: string): string | undefined {
  const source = path.replace(/(^|[\\/])dist[\\/]/, '$1').replace(/\.js$/, '.ts');
  return source === path ? undefined : source;
}

/** A compiled test whose source folder is there but whose source file is not. */
export function isStale(path: string, exists: (p: string) => boolean = existsSync): boolean {
  const source = sourceOf(path);
  return source !== undefined && exists(dirname(source)) && !exists(source);
}

/** The test files under each target (a file or a folder, depth first, sorted), stale ones left out and passed to `leftOut`. */
export function testFiles(target: string, leftOut: (path: string) => void = () => {}): string[] {
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target).sort().flatMap((name) => {
    const path = join(target, name);
    if (statSync(path).isDirectory()) return testFiles(path, leftOut);
    if (!name.endsWith('.test.js')) return [];
    if (isStale(path)) { leftOut(path); return []; }
    return [path];
  });
}
