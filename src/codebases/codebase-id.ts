import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { CairnError } from '../shared/errors.js';

/**
 * A segment of an id: what a git host allows in an owner or repository name. Anything else
 * becomes `-`, so an id never holds `/` inside a segment, `@`, or a path of its own (`..`).
 */
function toSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '-');
}

/** The path part of a remote URL: `https://h/o/r.git`, `ssh://git@h:22/o/r`, `git@h:o/r.git`, `file:///x/o/r.git`, `/x/o/r.git`. */
function remotePath(url: string): string {
  const trimmed = url.trim();
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(trimmed)) {
    try {
      return decodeURIComponent(new URL(trimmed).pathname);
    } catch {
      return trimmed.replace(/^[^:]+:\/\/[^/]*/, '');
    }
  }
  // scp-like `user@host:owner/repo.git` (a colon before any slash); anything else is a local path.
  const scp = /^[^/:]+:(.*)$/.exec(trimmed);
  return scp ? scp[1]! : trimmed;
}

/**
 * `owner/repo` of a remote URL, the last two path segments with a trailing `.git` dropped, so
 * every clone of one remote has the same id whichever URL form it was cloned with.
 */
export function codebaseIdFromRemote(url: string): string {
  const segments = remotePath(url)
    .replace(/\\/g, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.');
  const repo = segments.pop()?.replace(/\.git$/, '');
  const owner = segments.pop();
  if (!owner || !repo || [owner, repo].some((s) => s === '..' || toSegment(s) === '')) {
    throw new CairnError(
      'VALIDATION_FAILED',
      `Cannot derive an owner/repo id from the URL '${url}': it needs at least two path segments, as in https://host/owner/repo.git`,
    );
  }
  return `${toSegment(owner)}/${toSegment(repo)}`;
}

/**
 * The id of a checkout without a remote: `local/<folder>@<hash>`, the hash being the first 12
 * hex digits of the SHA-256 of its real path. Stable for one directory, different for two
 * folders of the same name. It cannot collide with a remote-derived id, because those never
 * contain `@` (toSegment replaces it).
 */
export function localCodebaseId(realPath: string): string {
  const hash = createHash('sha256').update(realPath).digest('hex').slice(0, 12);
  return `local/${toSegment(basename(realPath)) || 'root'}@${hash}`;
}
