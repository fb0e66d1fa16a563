import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../shared/log.js';
import type { UpdateCheckResponse } from '../wire/update-check.js';
import { packagePath } from '../shared/package-root.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../shared/private-files.js';

/**
 * `GET /api/update-check`. A source build (a checkout, where `src/` sits beside `dist/`) never
 * asks anyone: it is as new as its checkout. A packaged build (installed from npm, which ships no
 * `src/`) asks the npm registry for the package's `latest` version at most once a day, with a
 * 2 s timeout; the answer (or the failure) is kept in a file under the home, so restarts do not
 * ask again and a request never waits longer than the timeout.
 */

export const UPDATE_CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;
export const UPDATE_CHECK_TIMEOUT_MS = 2_000;
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';

export interface UpdateCheckOptions {
  currentVersion: string;
  packageName: string;
  /** False for a source build: no request is ever made. */
  packaged: boolean;
  /** The npm registry's base URL. */
  registry: string;
  /** Where the last answer is kept between restarts. */
  cacheFile: string;
  clock: () => number;
  log: Logger;
}

const cacheSchema = z.object({ checkedAt: z.number(), latestVersion: z.string().nullable() });
type Cache = z.infer<typeof cacheSchema>;

/** True when this copy of Cairn was installed as a package (no `src/` folder beside `dist/`). */
export function isPackagedBuild(): boolean {
  return !existsSync(packagePath('src'));
}

/** `a` > `b` for `x.y.z` versions; a pre-release is never "newer" than what is installed. */
export function isNewerVersion(a: string, b: string): boolean {
  const parse = (v: string) => /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v.trim())?.slice(1).map(Number);
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return false;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return false;
}

export class UpdateChecker {
  private memory: Cache | undefined;
  private inFlight: Promise<Cache> | undefined;

  constructor(private readonly opts: UpdateCheckOptions) {}

  async check(): Promise<UpdateCheckResponse> {
    const current = this.opts.currentVersion;
    if (!this.opts.packaged) return { updateAvailable: false, currentVersion: current, latestVersion: current, releaseUrl: '' };
    const cache = await this.cached();
    const latest = cache.latestVersion;
    if (latest === null || !isNewerVersion(latest, current)) {
      return { updateAvailable: false, currentVersion: current, latestVersion: current, releaseUrl: '' };
    }
    return {
      updateAvailable: true,
      currentVersion: current,
      latestVersion: latest,
      releaseUrl: `https://www.npmjs.com/package/${this.opts.packageName}/v/${latest}`,
    };
  }

  private async cached(): Promise<Cache> {
    const fresh = (c: Cache | undefined) => c !== undefined && this.opts.clock() - c.checkedAt < UPDATE_CHECK_INTERVAL_MS;
    if (fresh(this.memory)) return this.memory!;
    this.memory ??= await this.readFile();
    if (fresh(this.memory)) return this.memory!;
    // Concurrent requests share one registry request.
    this.inFlight ??= this.ask().finally(() => (this.inFlight = undefined));
    this.memory = await this.inFlight;
    return this.memory;
  }

  private async readFile(): Promise<Cache | undefined> {
    try {
      const parsed = cacheSchema.safeParse(JSON.parse(await readFile(this.opts.cacheFile, 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private async ask(): Promise<Cache> {
    const url = `${this.opts.registry.replace(/\/+$/, '')}/${encodeURIComponent(this.opts.packageName)}/latest`;
    let latestVersion: string | null = null;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(UPDATE_CHECK_TIMEOUT_MS), headers: { accept: 'application/json' } });
      const body = res.ok ? ((await res.json()) as { version?: unknown }) : undefined;
      if (typeof body?.version === 'string') latestVersion = body.version;
      else this.opts.log.warn({ url, status: res.status }, 'update.check_failed');
    } catch (err) {
      this.opts.log.warn({ url, err }, 'update.check_failed');
    }
    // A failure is kept too: the registry is asked again tomorrow, not at every request.
    const cache: Cache = { checkedAt: this.opts.clock(), latestVersion };
    try {
      await makePrivateDir(dirname(this.opts.cacheFile));
      const temp = `${this.opts.cacheFile}.${process.pid}.tmp`;
      await writeFile(temp, JSON.stringify(cache), { mode: PRIVATE_FILE_MODE });
      await rename(temp, this.opts.cacheFile);
    } catch (err) {
      this.opts.log.warn({ err }, 'update.cache_write_failed');
    }
    return cache;
  }
}
