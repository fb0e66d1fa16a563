import { git } from './git-checkout.js';

/**
 * What changed in a run's worktree, as git tells it: the unified diff between two points and the
 * files it touches with their line counts. Every git call is an argv array (simple-git spawns
 * git without a shell), refs are fully qualified and put after `--end-of-options`, and commits
 * are checked to be hex object names: the branch names and commits come from the store and the
 * records, and are treated as hostile. External diff drivers and text conversions are off, so a
 * repository's attributes cannot make the diff run a program.
 */

/** Longest diff text answered; past it the text is cut (at a line end) and `truncated` says so. */
export const DIFF_TEXT_MAX = 1024 * 1024;
/** Most new files (untracked, not ignored) a diff of the worktree as it is shows; past it `truncated` says so. */
export const UNTRACKED_MAX = 200;

export interface DiffFile {
  path: string;
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  removed: number | null;
}

export interface WorktreeDiff {
  /** The commit the diff starts from. */
  from: string;
  /** The commit it ends at, or null for the worktree's files as they are now (uncommitted changes included). */
  to: string | null;
  files: DiffFile[];
  diff: string;
  truncated: boolean;
}

const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** True when `text` is a full hex object name (SHA-1 or SHA-256), nothing else. */
export function isCommitName(text: unknown): text is string {
  return typeof text === 'string' && COMMIT.test(text);
}

const diffOptions = ['--no-color', '--no-ext-diff', '--no-textconv', '--find-renames'];

/** The commit `ref` (a full ref name or a commit) names in the repository at `dir`, or undefined. */
export async function resolveCommit(dir: string, ref: string): Promise<string | undefined> {
  const out = await git(dir)
    .raw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`])
    .catch(() => '');
  const commit = out.trim();
  return isCommitName(commit) ? commit : undefined;
}

/** The best common ancestor of two commits, or undefined when they share none. */
export async function mergeBase(dir: string, a: string, b: string): Promise<string | undefined> {
  const out = await git(dir)
    .raw(['merge-base', '--end-of-options', a, b])
    .catch(() => '');
  const commit = out.trim();
  return isCommitName(commit) ? commit : undefined;
}

/**
 * The diff from commit `from` to commit `to`, or, with `to` null, to the files of the worktree
 * at `dir` as they are: changes not committed yet, and new files git does not ignore (the first
 * `UNTRACKED_MAX`), each shown as added whole.
 */
export async function diffBetween(dir: string, from: string, to: string | null): Promise<WorktreeDiff> {
  const range = to === null ? [from] : [from, to];
  const client = git(dir);
  const [numstat, text] = await Promise.all([
    client.raw(['diff', ...diffOptions, '--numstat', '-z', '--end-of-options', ...range, '--']),
    client.raw(['diff', ...diffOptions, '--end-of-options', ...range, '--']),
  ]);
  const files = parseNumstat(numstat);
  let full = text;
  let tooMany = false;
  if (to === null) {
    const untracked = await untrackedDiffs(dir);
    files.push(...untracked.files);
    full += untracked.text;
    tooMany = untracked.tooMany;
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  const cut = cutText(full);
  return { from, to, files, diff: cut.text, truncated: cut.truncated || tooMany };
}

/** New files of the worktree (not ignored), each as a diff from nothing (`git diff --no-index`). */
async function untrackedDiffs(dir: string): Promise<{ files: DiffFile[]; text: string; tooMany: boolean }> {
  const client = git(dir);
  const listed = (await client.raw(['ls-files', '--others', '--exclude-standard', '-z'])).split('\0').filter(Boolean);
  const files: DiffFile[] = [];
  let text = '';
  for (const path of listed.slice(0, UNTRACKED_MAX)) {
    // `--no-index` exits 1 when the files differ; simple-git answers the output of a command that wrote nothing on stderr.
    const patch = await client.raw(['diff', ...diffOptions, '--no-index', '--', '/dev/null', path]).catch(() => '');
    if (patch === '') continue;
    text += patch.endsWith('\n') ? patch : `${patch}\n`;
    files.push({ path, ...countLines(patch) });
  }
  return { files, text, tooMany: listed.length > UNTRACKED_MAX };
}

/** Lines added and removed in one file's patch; null for a binary file. */
function countLines(patch: string): { added: number | null; removed: number | null } {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (!inHunk && /^Binary files /.test(line)) return { added: null, removed: null };
    if (line.startsWith('@@')) inHunk = true;
    else if (inHunk && line.startsWith('+')) added++;
    else if (inHunk && line.startsWith('-')) removed++;
  }
  return { added, removed };
}

function cutText(text: string): { text: string; truncated: boolean } {
  if (text.length <= DIFF_TEXT_MAX) return { text, truncated: false };
  const end = text.lastIndexOf('\n', DIFF_TEXT_MAX);
  return { text: text.slice(0, end === -1 ? DIFF_TEXT_MAX : end + 1), truncated: true };
}

/**
 * `git diff --numstat -z`: `<added>\t<removed>\t<path>\0` per file, or for a rename
 * `<added>\t<removed>\t\0<old>\0<new>\0`; `-` counts for a binary file.
 */
export function parseNumstat(out: string): DiffFile[] {
  const fields = out.split('\0');
  const files: DiffFile[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(field);
    if (!match) continue;
    let path = match[3]!;
    if (path === '') {
      // A rename: the old path, then the new one.
      path = fields[i + 2] ?? fields[i + 1] ?? '';
      i += 2;
    }
    const count = (text: string) => (text === '-' ? null : Number(text));
    files.push({ path, added: count(match[1]!), removed: count(match[2]!) });
  }
  return files;
}
