/**
 * Finding the native libraries the way users' machines have them:
 *   1. an explicit full path in an environment variable (MYRIAD_LIBCUDA, ...): when set, it is
 *      the only candidate, so a misconfiguration fails loudly instead of silently falling back;
 *   2. the CUDA toolkit folders: $CUDA_PATH and $CUDA_HOME (lib64, then targets/<arch>/lib),
 *      then /usr/local/cuda (same two), and for the driver the container/WSL folders;
 *   3. the system loader by soname (ldconfig, LD_LIBRARY_PATH), newest soname first.
 * `candidates()` is pure (env and a file test are parameters) so the order is testable on any
 * machine; `loadLibrary()` tries them with koffi and reports every attempt when all fail.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import koffi from 'koffi';
import { MyriadError } from '../../core/errors.js';

export interface LibrarySpec {
  /** Short name for messages, e.g. 'libnvrtc'. */
  readonly label: string;
  /** The environment variable holding an explicit full path. */
  readonly envVar: string;
  /** Sonames, most preferred first. */
  readonly sonames: readonly string[];
  /** Whether the CUDA toolkit folders are searched (false for the driver, which the toolkit only has as a stub). */
  readonly inToolkit: boolean;
  /** Extra folders searched after the toolkit ones. */
  readonly extraDirs?: readonly string[];
}

export const LIBCUDA: LibrarySpec = {
  label: 'libcuda.so.1',
  envVar: 'MYRIAD_LIBCUDA',
  sonames: ['libcuda.so.1', 'libcuda.so'],
  inToolkit: false,
  extraDirs: ['/usr/local/nvidia/lib64', '/usr/lib/wsl/lib'],
};
export const LIBNVRTC: LibrarySpec = {
  label: 'libnvrtc',
  envVar: 'MYRIAD_LIBNVRTC',
  sonames: ['libnvrtc.so.13', 'libnvrtc.so.12', 'libnvrtc.so.11.2', 'libnvrtc.so'],
  inToolkit: true,
};
export const LIBCUBLAS: LibrarySpec = {
  label: 'libcublas',
  envVar: 'MYRIAD_LIBCUBLAS',
  sonames: ['libcublas.so.13', 'libcublas.so.12', 'libcublas.so'],
  inToolkit: true,
};
export const LIBCUSOLVER: LibrarySpec = {
  label: 'libcusolver',
  envVar: 'MYRIAD_LIBCUSOLVER',
  sonames: ['libcusolver.so.12', 'libcusolver.so.11', 'libcusolver.so'],
  inToolkit: true,
};

export type Env = Readonly<Record<string, string | undefined>>;

/** The toolkit's per-architecture library folder name (targets/<this>/lib). */
function targetTriple(): string {
  return process.arch === 'arm64' ? 'sbsa-linux' : 'x86_64-linux';
}

/** The folders searched for toolkit libraries, in order, without duplicates. */
export function toolkitDirs(env: Env): string[] {
  const roots = [env['CUDA_PATH'], env['CUDA_HOME'], '/usr/local/cuda'].filter((r): r is string => !!r);
  const dirs: string[] = [];
  for (const root of roots) {
    for (const dir of [join(root, 'lib64'), join(root, 'targets', targetTriple(), 'lib')]) {
      if (!dirs.includes(dir)) dirs.push(dir);
    }
  }
  return dirs;
}

/**
 * The paths to try, in order: the env var alone if set; else every existing `dir/soname`
 * of the searched folders, then the bare sonames for the system loader.
 */
export function candidates(spec: LibrarySpec, env: Env = process.env, exists: (path: string) => boolean = existsSync): string[] {
  const explicit = env[spec.envVar];
  if (explicit) return [explicit];
  const dirs = [...(spec.inToolkit ? toolkitDirs(env) : []), ...(spec.extraDirs ?? [])];
  const found: string[] = [];
  for (const dir of dirs) {
    for (const soname of spec.sonames) {
      const path = join(dir, soname);
      if (exists(path) && !found.includes(path)) found.push(path);
    }
  }
  return [...found, ...spec.sonames];
}

/**
 * The part of a koffi library handle that myriad uses, declared here so that koffi's own types
 * stay out of the published declarations (a CommonJS consumer without esModuleInterop cannot
 * read `import koffi from 'koffi'` in a .d.ts).
 */
export interface NativeLibrary {
  func(prototype: string): unknown;
}

export interface LoadedLibrary {
  readonly lib: NativeLibrary;
  /** The candidate that loaded (a full path, or a soname the system loader resolved). */
  readonly path: string;
}

/**
 * Loads the first candidate that koffi can open. Throws BACKEND_UNAVAILABLE with a one-line
 * reason (`libnvrtc not found (tried ...)`) when none can.
 */
export function loadLibrary(spec: LibrarySpec, env: Env = process.env): LoadedLibrary {
  const tried = candidates(spec, env);
  const failures: string[] = [];
  for (const path of tried) {
    try {
      return { lib: koffi.load(path), path };
    } catch (e) {
      failures.push(path);
      if (env[spec.envVar]) {
        throw new MyriadError('BACKEND_UNAVAILABLE', `${spec.label} could not be loaded from ${spec.envVar}=${path}: ${(e as Error).message}`);
      }
    }
  }
  const hint = spec === LIBCUDA ? ' (no NVIDIA driver)' : ` (install the CUDA toolkit or set ${spec.envVar} to its full path)`;
  throw new MyriadError('BACKEND_UNAVAILABLE', `${spec.label} not found${hint}; tried ${failures.join(', ')}`);
}

/**
 * Why a library cannot be used (its loader's error message), or undefined where `load` succeeds:
 * tried once, the answer kept (a library that is missing stays missing for the process).
 */
export function missingOnce(load: () => unknown): () => string | undefined {
  let answer: { missing: string | undefined } | undefined;
  return () => {
    if (answer === undefined) {
      try {
        load();
        answer = { missing: undefined };
      } catch (e) {
        answer = { missing: (e as Error).message };
      }
    }
    return answer.missing;
  };
}
