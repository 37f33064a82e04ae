/**
 * The compiled-module cache: in memory, and on disk under a per-user folder
 * (MYRIAD_CACHE_DIR, else $XDG_CACHE_HOME/myriad, else ~/.cache/myriad).
 *
 * The key is derived, never maintained by hand (STYLE.md, "Derive cache keys"): sha256 of the
 * source text, the full option list, the arch, the NVRTC and driver versions and the cache
 * format version, itself a hash of the code that writes and reads the entries below.
 *
 * One file per key that defends itself (CuPy `_compiler_cache.py`, Triton `cache.py`):
 *   magic 'MYRIADKC' (8) | format version (32) | key (32) | payload length u64 LE (8) |
 *   sha256 of the payload (32) | payload.
 * Written to a temporary file in the same folder and renamed (atomic on POSIX: two processes
 * compiling the same kernel both succeed, the last rename wins with identical bytes). Any bad
 * read (truncated, wrong magic, other format, bad checksum) is a miss: the file is removed and
 * the source recompiled, never loaded. A disk that cannot be written degrades to memory only.
 *
 * MYRIAD_KEEP_SOURCE=1 keeps `<key>.cu` beside each binary; MYRIAD_PRINT_SOURCE=1 prints each
 * source to stderr the first time this process needs it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CompileFn } from './compiler.js';
import type { Env } from './libraries.js';

const MAGIC = Buffer.from('MYRIADKC', 'ascii');
const HEADER_BYTES = 8 + 32 + 32 + 8 + 32;

function sha256(...parts: (string | Uint8Array)[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) {
    // A length prefix keeps ('ab','c') and ('a','bc') apart.
    const bytes = typeof p === 'string' ? Buffer.from(p, 'utf8') : p;
    h.update(`${bytes.length}:`);
    h.update(bytes);
  }
  return h.digest();
}

export interface CacheKeyParts {
  readonly source: string;
  readonly options: readonly string[];
  readonly arch: string;
  readonly nvrtcVersion: string;
  readonly driverVersion: string;
}

/** The hex sha256 naming one compiled module. */
export function cacheKey(parts: CacheKeyParts): string {
  return sha256(
    CACHE_FORMAT_VERSION.toString('hex'),
    parts.arch,
    parts.nvrtcVersion,
    parts.driverVersion,
    JSON.stringify(parts.options),
    parts.source,
  ).toString('hex');
}

/** One cache file's bytes for `payload` under `key` (hex). */
export function encodeEntry(key: string, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  CACHE_FORMAT_VERSION.copy(header, 8);
  Buffer.from(key, 'hex').copy(header, 40);
  header.writeBigUInt64LE(BigInt(payload.byteLength), 72);
  createHash('sha256').update(payload).digest().copy(header, 80);
  return Buffer.concat([header, payload]);
}

/** The payload of a cache file, or a reason it is unusable. */
export function decodeEntry(key: string, bytes: Uint8Array): { payload: Uint8Array } | { bad: string } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER_BYTES) return { bad: `truncated header (${buf.length} bytes)` };
  if (!buf.subarray(0, 8).equals(MAGIC)) return { bad: 'wrong magic' };
  if (!buf.subarray(8, 40).equals(CACHE_FORMAT_VERSION)) return { bad: 'other cache format version' };
  if (!buf.subarray(40, 72).equals(Buffer.from(key, 'hex'))) return { bad: 'entry of another key' };
  const length = buf.readBigUInt64LE(72);
  if (length !== BigInt(buf.length - HEADER_BYTES)) return { bad: `payload length ${length}, file holds ${buf.length - HEADER_BYTES}` };
  const payload = buf.subarray(HEADER_BYTES);
  if (!createHash('sha256').update(payload).digest().equals(buf.subarray(80, 112))) return { bad: 'checksum mismatch' };
  return { payload: new Uint8Array(payload) };
}

/**
 * The cache format version: a hash of the code that defines the key and the file layout, so
 * that changing it can never load an entry written by the old code.
 */
const CACHE_FORMAT_VERSION: Buffer = sha256('myriad-module-cache', MAGIC, String(HEADER_BYTES), cacheKey.toString(), encodeEntry.toString(), decodeEntry.toString());

/** The cache format version as hex (for `myriad info` and tests). */
export const cacheFormatVersion = (): string => CACHE_FORMAT_VERSION.toString('hex');

/** MYRIAD_CACHE_DIR, else $XDG_CACHE_HOME/myriad, else ~/.cache/myriad. */
export function defaultCacheDir(env: Env = process.env): string {
  if (env['MYRIAD_CACHE_DIR']) return env['MYRIAD_CACHE_DIR'];
  if (env['XDG_CACHE_HOME']) return join(env['XDG_CACHE_HOME'], 'myriad');
  return join(homedir(), '.cache', 'myriad');
}

export interface ModuleCacheOptions {
  readonly compile: CompileFn;
  readonly nvrtcVersion: string;
  readonly driverVersion: string;
  /** The disk folder; null keeps the cache in memory only. Default: `defaultCacheDir(env)`. */
  readonly dir?: string | null;
  readonly env?: Env;
}

export interface ModuleRequest {
  readonly name: string;
  readonly source: string;
  /** The full NVRTC option list (target included). */
  readonly options: readonly string[];
  readonly arch: string;
}

export interface ModuleCacheStats {
  memoryHits: number;
  diskHits: number;
  compiles: number;
  /** Disk entries found bad and removed. */
  discarded: number;
  /** Disk writes that failed (the cache then works from memory). */
  writeFailures: number;
}

export class ModuleCache {
  readonly dir: string | null;
  readonly stats: ModuleCacheStats = { memoryHits: 0, diskHits: 0, compiles: 0, discarded: 0, writeFailures: 0 };
  /** Milliseconds spent compiling on this thread (`get`'s misses). */
  readonly timing = { compileMs: 0 };
  private readonly memory = new Map<string, Uint8Array>();
  private readonly env: Env;

  constructor(private readonly opts: ModuleCacheOptions) {
    this.env = opts.env ?? process.env;
    this.dir = opts.dir === undefined ? defaultCacheDir(this.env) : opts.dir;
  }

  keyOf(request: ModuleRequest): string {
    return cacheKey({ ...request, nvrtcVersion: this.opts.nvrtcVersion, driverVersion: this.opts.driverVersion });
  }

  /** The path of the entry for `key` (null without a disk folder). */
  pathOf(key: string): string | null {
    return this.dir === null ? null : join(this.dir, `${key}.bin`);
  }

  /** The binary for `request`: from memory, else disk, else compiled (and stored in both). */
  get(request: ModuleRequest): Uint8Array {
    const key = this.keyOf(request);
    const hit = this.memory.get(key);
    if (hit) {
      this.stats.memoryHits++;
      return hit;
    }
    if (this.env['MYRIAD_PRINT_SOURCE'] === '1') {
      process.stderr.write(`// ---- ${request.name} [${request.options.join(' ')}] key ${key.slice(0, 16)}\n${request.source}\n`);
    }
    let binary = this.readDisk(key);
    if (binary) {
      this.stats.diskHits++;
    } else {
      const t0 = performance.now();
      binary = this.opts.compile(request);
      this.timing.compileMs += performance.now() - t0;
      this.stats.compiles++;
      this.writeDisk(key, binary, request.source);
    }
    this.memory.set(key, binary);
    return binary;
  }

  /**
   * Whether `request`'s binary is at hand without compiling: in memory, or a sound disk entry
   * (then loaded into memory, so the `get` that follows is a memory hit).
   */
  has(request: ModuleRequest): boolean {
    const key = this.keyOf(request);
    if (this.memory.has(key)) return true;
    const binary = this.readDisk(key);
    if (!binary) return false;
    this.stats.diskHits++;
    this.memory.set(key, binary);
    return true;
  }

  /** Stores a binary compiled elsewhere (the compile workers) for `request`: memory and disk. */
  put(request: ModuleRequest, binary: Uint8Array): void {
    const key = this.keyOf(request);
    this.stats.compiles++;
    this.writeDisk(key, binary, request.source);
    this.memory.set(key, binary);
  }

  /** Forgets the in-memory entries (the disk stays): for tests and `myriad cache`. */
  clearMemory(): void {
    this.memory.clear();
  }

  private readDisk(key: string): Uint8Array | undefined {
    const path = this.pathOf(key);
    if (path === null) return undefined;
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return undefined; // absent or unreadable: a miss
    }
    const entry = decodeEntry(key, bytes);
    if ('payload' in entry) return entry.payload;
    this.stats.discarded++;
    try {
      unlinkSync(path);
    } catch {
      // another process may have removed or replaced it already
    }
    return undefined;
  }

  private writeDisk(key: string, binary: Uint8Array, source: string): void {
    const path = this.pathOf(key);
    if (path === null || this.dir === null) return;
    const tmp = join(this.dir, `.${key}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(tmp, encodeEntry(key, binary));
      renameSync(tmp, path);
      if (this.env['MYRIAD_KEEP_SOURCE'] === '1') writeFileSync(join(this.dir, `${key}.cu`), source);
    } catch {
      this.stats.writeFailures++;
      try {
        unlinkSync(tmp);
      } catch {
        // nothing was written
      }
    }
  }
}
