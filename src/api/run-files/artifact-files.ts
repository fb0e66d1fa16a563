import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { ownerRepoOf, runArtifactsDir } from '../../codebases/workspace-paths.js';
import { CairnError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/paths.js';
import type { Run } from '../../store/schemas/run.js';
import type { ArtifactFile } from '../../wire/artifacts.js';

/**
 * Reading a run's `$ARTIFACTS_DIR` for the artifacts routes, without ever reading outside it:
 * run ids and paths are checked as text first, then the file's real path (symlinks resolved)
 * must still be inside the folder's real path.
 */

export const artifactErrorText = {
  invalidRunId: 'Invalid run id',
  invalidPath: 'Invalid artifact path',
  notFound: (path: string) => `Artifact not found: ${path}`,
} as const;

/** Upstream's rule for the run id of these routes; checked before anything is looked up. */
export function checkArtifactRunId(runId: string): void {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(runId)) throw new CairnError('VALIDATION_FAILED', artifactErrorText.invalidRunId);
}

/**
 * The folder the routes read, or undefined when the contract says the run has none to show: no
 * codebase, or a codebase id not in `owner/repo` form (contract run rule 5). A run without a
 * codebase keeps its artifacts in its own folder under the home; the routes do not list them.
 */
export function listedArtifactsDir(paths: HomePaths, run: Pick<Run, 'id' | 'codebase_id'>): string | undefined {
  if (run.codebase_id === null || !ownerRepoOf(run.codebase_id)) return undefined;
  return runArtifactsDir(paths, run);
}

async function realDir(dir: string): Promise<string | undefined> {
  try {
    const real = await realpath(dir);
    return (await stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every regular file under `dir`, sorted by path. Dotfiles and dot-folders are skipped, and
 * symlinks are never followed (a link could point anywhere on the machine).
 */
export async function listArtifactFiles(dir: string): Promise<ArtifactFile[]> {
  const root = await realDir(dir);
  if (!root) return [];
  const files: ArtifactFile[] = [];
  const walk = async (folder: string, prefix: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return; // removed while we walked: nothing to list there
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = join(folder, entry.name);
      if (entry.isDirectory()) await walk(full, path);
      else if (entry.isFile()) {
        const info = await lstat(full).catch(() => undefined);
        if (info?.isFile()) files.push({ path, size: info.size, modifiedAt: info.mtime.toISOString() });
      }
    }
  };
  await walk(root, '');
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * A requested path as text: relative, `/`-separated, no `.`/`..`/dot segments, no backslash, NUL
 * or percent-escape left after the router decoded it once (a double-encoded `..`).
 */
function checkRelativePath(path: string): string[] {
  const refuse = () => {
    throw new CairnError('VALIDATION_FAILED', artifactErrorText.invalidPath);
  };
  if (path.length === 0 || path.startsWith('/') || /[\\\0]/.test(path) || /%[0-9a-f]{2}/i.test(path)) refuse();
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s.startsWith('.'))) refuse();
  return segments;
}

/** The real path of one artifact: 400 for any escape attempt, 404 when there is no such file. */
export async function resolveArtifactFile(dir: string | undefined, path: string): Promise<{ file: string; size: number }> {
  const segments = checkRelativePath(path);
  const root = dir ? await realDir(dir) : undefined;
  if (!root) throw new CairnError('NOT_FOUND', artifactErrorText.notFound(path));
  let real: string;
  try {
    real = await realpath(join(root, ...segments));
  } catch {
    throw new CairnError('NOT_FOUND', artifactErrorText.notFound(path));
  }
  const inside = relative(root, real);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || inside.startsWith(sep)) {
    throw new CairnError('VALIDATION_FAILED', artifactErrorText.invalidPath);
  }
  const info = await stat(real);
  if (!info.isFile()) throw new CairnError('NOT_FOUND', artifactErrorText.notFound(path));
  return { file: real, size: info.size };
}

const contentTypes: Record<string, string> = {
  '.txt': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.yaml': 'text/yaml; charset=utf-8',
  '.yml': 'text/yaml; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.diff': 'text/x-diff; charset=utf-8',
  '.patch': 'text/x-diff; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
};

/** The content type of an artifact by its extension; unknown kinds are bytes. */
export function artifactContentType(path: string): string {
  return contentTypes[extname(path).toLowerCase()] ?? 'application/octet-stream';
}
