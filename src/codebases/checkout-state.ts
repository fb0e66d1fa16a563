import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, parse as parsePath } from 'node:path';
import { coerceError } from '../shared/errors.js';
import type { CheckoutObservation } from '../records/schemas/checkout-observation.js';
import { git } from './git-checkout.js';

/** At most this many changed paths go into a dirty checkout's manifest; past it, `content: incomplete`. */
export const MANIFEST_MAX_ENTRIES = 10_000;

export interface ObserveCheckoutOptions {
  runId: string;
  /** The run's artifacts folder: a dirty checkout's manifest is written under it. */
  artifactsDir: string;
  /** The manifest's path inside the artifacts folder (one file per attempt). */
  manifestPath: string;
  now?: () => Date;
}

/** One changed path of `git status --porcelain=v2`: its two-letter status (`??` untracked) and path. */
interface ManifestEntry {
  xy: string;
  path: string;
}

/**
 * Samples the checkout a node attempt starts in (the records contract's `checkoutStart`):
 * one `git status --porcelain=v2 --branch` and, when there is a commit, one `rev-parse` for its
 * tree. Never throws: a directory git says is not a repository is `not_git`, any other failure
 * `unavailable`. A dirty checkout's changed paths are written to a manifest under the run's
 * artifacts (counted and hashed in the observation).
 */
export async function observeCheckout(cwd: string, opts: ObserveCheckoutOptions): Promise<CheckoutObservation> {
  const sampledAt = (opts.now ?? (() => new Date()))().toISOString();
  // Synchronous: microseconds in the worker thread, where a promise per attempt showed in profiles.
  const isDir = statSync(cwd, { throwIfNoEntry: false })?.isDirectory() ?? false;
  if (!isDir) return { kind: 'unavailable', sampledAt, reason: 'probe_failed' };
  // Most runs without a codebase work in a scratch folder outside any repository: a few stats
  // say so without starting git (a process per attempt would cost a fan-out of `true` half its rate).
  if (!(await insideGitCheckout(cwd))) return { kind: 'not_git', sampledAt };
  let status: string;
  try {
    status = await git(cwd).raw(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all']);
  } catch (thrown) {
    const message = coerceError(thrown).message;
    if (/not a git repository/i.test(message)) return { kind: 'not_git', sampledAt };
    return { kind: 'unavailable', sampledAt, reason: 'git_failed' };
  }
  const { oid, entries } = parseStatus(status);
  if (oid === undefined) return { kind: 'unavailable', sampledAt, reason: 'git_failed' };
  const commit = oid === '(initial)' ? null : oid;
  let tree: string | null = null;
  if (commit) {
    tree = (await git(cwd).raw(['rev-parse', '--verify', '--quiet', `${commit}^{tree}`]).catch(() => '')).trim() || null;
  }
  if (entries.length === 0) return { kind: 'git', sampledAt, commit, tree, worktree: { status: 'clean' } };
  const kept = entries.slice(0, MANIFEST_MAX_ENTRIES);
  const text = kept.map((e) => JSON.stringify(e)).join('\n') + '\n';
  try {
    const file = join(opts.artifactsDir, opts.manifestPath);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
  } catch {
    return { kind: 'unavailable', sampledAt, reason: 'probe_failed' };
  }
  return {
    kind: 'git',
    sampledAt,
    commit,
    tree,
    worktree: {
      status: 'dirty',
      content: kept.length === entries.length ? 'complete' : 'incomplete',
      staged: entries.filter((e) => e.xy !== '??' && e.xy[0] !== '.').length,
      unstaged: entries.filter((e) => e.xy !== '??' && e.xy[1] !== '.').length,
      untracked: entries.filter((e) => e.xy === '??').length,
      manifest: {
        pointer: { type: 'service_artifact', run_id: opts.runId, path: opts.manifestPath },
        sha256: createHash('sha256').update(text).digest('hex'),
        entries: kept.length,
      },
    },
  };
}

/**
 * `git status --porcelain=v2 --branch -z`: headers `# branch.oid <sha|(initial)>`; entries
 * `1 XY ...<path>`, `2 XY ...<path>` followed by the original path as its own field,
 * `u XY ...<path>`, `? <path>`. Ignored (`!`) entries are not asked for.
 */
function parseStatus(out: string): { oid: string | undefined; entries: ManifestEntry[] } {
  const fields = out.split('\0');
  let oid: string | undefined;
  const entries: ManifestEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.startsWith('# branch.oid ')) oid = field.slice('# branch.oid '.length);
    else if (field.startsWith('? ')) entries.push({ xy: '??', path: field.slice(2) });
    else if (field.startsWith('1 ')) entries.push({ xy: field.slice(2, 4), path: field.split(' ').slice(8).join(' ') });
    else if (field.startsWith('2 ')) {
      entries.push({ xy: field.slice(2, 4), path: field.split(' ').slice(9).join(' ') });
      i++; // the original path of a rename or copy
    } else if (field.startsWith('u ')) entries.push({ xy: field.slice(2, 4), path: field.split(' ').slice(10).join(' ') });
  }
  return { oid, entries };
}

/**
 * Whether `dir` or a folder above it holds a `.git` entry (a repository's folder or a worktree's
 * pointer file). `existsSync`: a few microseconds each in the worker thread, where a rejected
 * `stat` promise per level built an error object every time.
 */
async function insideGitCheckout(dir: string): Promise<boolean> {
  const { root } = parsePath(dir);
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, '.git'))) return true;
    if (current === root) return false;
  }
}
