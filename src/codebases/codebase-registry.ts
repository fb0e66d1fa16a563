import { constants } from 'node:fs';
import { access, mkdir, realpath, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { CairnError, coerceError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import type { HomePaths } from '../shared/paths.js';
import type { Codebase, IsolationEnvironment, NewCodebase } from '../store/schemas/codebase.js';
import type { Store } from '../store/store.js';
import { codebaseIdFromRemote, localCodebaseId } from './codebase-id.js';
import { scanEnvFiles } from './env-scan.js';
import { cloneRepository, gitFailureReason, readCheckout } from './git-checkout.js';
import { withoutCredentials } from './remote-url.js';
import { removeCodebaseWorktrees } from './worktree-cleanup.js';
import { removeWorktreeCheckout } from './worktree-removal.js';

/** Exactly one of the two: a URL to clone, or a local directory to register in place. */
export type CodebaseSource = { url: string; path?: undefined } | { path: string; url?: undefined };

export interface CodebaseRegistryDeps {
  store: Store;
  paths: HomePaths;
  log: Logger;
  clock?: () => number;
}

/** Error texts clients may match on. */
export const codebaseErrorText = {
  notFound: (id: string) => `Codebase not found: ${id}. List the registered ones with GET /api/codebases`,
  cloneFailed: (reason: string) => `Failed to add codebase: ${reason}`,
  busy: (id: string, runId: string, path: string) =>
    `Codebase ${id} is in use: run ${runId} is working in ${path}. Cancel the run (or wait for it to end), then delete the codebase`,
} as const;

/**
 * Registering, reading and removing codebases: the git and filesystem side of the aggregate
 * (its rows are in the store). Clones go to `$CAIRN_HOME/workspaces/<owner>/<repo>/source`.
 */
export class CodebaseRegistry {
  private readonly now: () => string;
  /** Clones in progress in this process, by id: a second request for the same remote waits for the first. */
  private readonly cloning = new Map<string, Promise<{ codebase: Codebase; created: boolean }>>();

  constructor(private readonly deps: CodebaseRegistryDeps) {
    const clock = deps.clock ?? Date.now;
    this.now = () => new Date(clock()).toISOString();
  }

  /** Clones or registers; `created` is false when the id was already registered (nothing is cloned then). */
  async register(source: CodebaseSource): Promise<{ codebase: Codebase; created: boolean }> {
    if (source.url !== undefined) return this.registerClone(source.url);
    return this.registerPath(source.path);
  }

  async get(id: string): Promise<Codebase> {
    const codebase = await this.deps.store.getCodebase(id);
    if (!codebase) throw new CairnError('CODEBASE_NOT_FOUND', codebaseErrorText.notFound(id));
    return codebase;
  }

  list(): Promise<Codebase[]> {
    return this.deps.store.listCodebases();
  }

  async environments(id: string): Promise<IsolationEnvironment[]> {
    await this.get(id);
    return this.deps.store.listIsolationEnvironments(id);
  }

  /**
   * Removes one isolation environment of the codebase that no run holds: its row first (in one
   * transaction with the check, so no run claims it meanwhile), then its git worktree from disk
   * (its branch is kept). Refused while a run works in it.
   */
  async removeEnvironment(id: string, envId: string): Promise<{ env: IsolationEnvironment; removed: boolean; detail: string }> {
    await this.get(id);
    const found = await this.deps.store.removeIdleIsolationEnvironment(id, envId);
    if (found.kind === 'not_found') {
      throw new CairnError('NOT_FOUND', `Codebase ${id} has no isolation environment ${envId}. List them with GET /api/codebases/${id}/environments (or cairn worktree list)`);
    }
    if (found.kind === 'locked') {
      throw new CairnError('CODEBASE_BUSY', `Worktree ${found.env.working_path} is in use: run ${found.env.locked_by_run} is working in it. Cancel the run (or wait for it to end), then remove it`);
    }
    const removal = await removeWorktreeCheckout(this.deps.store, found.env);
    this.deps.log.info({ codebaseId: id, envId, path: found.env.working_path, removed: removal.removed }, 'codebase.environment_removed');
    return { env: found.env, ...removal };
  }

  /**
   * Grants or revokes consent to run with the secret-looking keys of the checkout's `.env*`
   * files, after scanning them again. Every decision is logged at warn level (names, never values).
   */
  async setEnvConsent(id: string, allow: boolean, actor: string): Promise<Codebase> {
    const existing = await this.get(id);
    const scan = await scanEnvFiles(existing.default_cwd, this.now);
    const codebase = await this.deps.store.setCodebaseEnvConsent(id, allow, scan);
    if (!codebase) throw new CairnError('CODEBASE_NOT_FOUND', codebaseErrorText.notFound(id));
    this.deps.log.warn(
      {
        codebaseId: id,
        path: codebase.default_cwd,
        scannedFiles: scan.files,
        matchedKeys: scan.keys,
        scanStatus: scan.status,
        actor,
      },
      allow ? 'env_leak_consent_granted' : 'env_leak_consent_revoked',
    );
    return codebase;
  }

  /**
   * Removes the registration, every worktree of it (git worktree remove, then prune) and its
   * isolation-environment rows; a clone Cairn made is deleted from disk, a registered checkout
   * never is. Refused while a run holds one of its environments under a live lock. Answers the
   * path deleted, if any.
   */
  async remove(id: string): Promise<{ codebase: Codebase; removedPath: string | null }> {
    const existing = await this.get(id);
    const environments = await this.deps.store.listIsolationEnvironments(id);
    const now = Date.parse(this.now());
    const busy = environments.find((e) => e.locked_by_run !== null && e.lock_expires_at !== null && Date.parse(e.lock_expires_at) >= now);
    if (busy) throw new CairnError('CODEBASE_BUSY', codebaseErrorText.busy(id, busy.locked_by_run!, busy.working_path));
    await removeCodebaseWorktrees(existing, environments, this.deps.paths, this.deps.log);
    const codebase = await this.deps.store.deleteCodebase(id);
    if (!codebase) throw new CairnError('CODEBASE_NOT_FOUND', codebaseErrorText.notFound(id));
    const clonePath = this.clonePathOf(codebase);
    if (!clonePath) return { codebase, removedPath: null };
    await rm(clonePath, { recursive: true, force: true });
    await this.removeEmptyParents(clonePath);
    this.deps.log.info({ codebaseId: id, path: clonePath }, 'codebase.clone_removed');
    return { codebase, removedPath: clonePath };
  }

  /** The clone's path when Cairn made it, and only when it is where Cairn puts clones. */
  private clonePathOf(codebase: Codebase): string | null {
    if (!codebase.managed) return null;
    const rel = relative(this.deps.paths.workspaces, codebase.default_cwd);
    const parts = rel.split(sep);
    const isOurs = !isAbsolute(rel) && parts.length === 3 && !parts.includes('..') && parts[2] === 'source';
    return isOurs ? codebase.default_cwd : null;
  }

  /** `<owner>/<repo>` and `<owner>` go too when nothing else is in them. */
  private async removeEmptyParents(clonePath: string): Promise<void> {
    for (const dir of [dirname(clonePath), dirname(dirname(clonePath))]) {
      if (!(await rmdir(dir).then(() => true, () => false))) return;
    }
  }

  private registerClone(url: string): Promise<{ codebase: Codebase; created: boolean }> {
    const id = codebaseIdFromRemote(url);
    const pending = this.cloning.get(id);
    if (pending) return pending.then((result) => ({ ...result, created: false }));
    const work = this.cloneOnce(id, url).finally(() => this.cloning.delete(id));
    this.cloning.set(id, work);
    return work;
  }

  private async cloneOnce(id: string, url: string): Promise<{ codebase: Codebase; created: boolean }> {
    const existing = await this.deps.store.getCodebase(id);
    if (existing) return { codebase: existing, created: false };
    const [owner, repo] = id.split('/') as [string, string];
    const dest = this.deps.paths.codebaseSource(owner, repo);
    // A directory left by a clone that was never registered (a crash between the two) is redone.
    await rm(dest, { recursive: true, force: true });
    await mkdir(dirname(dest), { recursive: true });
    this.deps.log.info({ codebaseId: id, path: dest }, 'codebase.clone_started');
    try {
      await cloneRepository(url, dest);
    } catch (thrown) {
      await rm(dest, { recursive: true, force: true });
      await this.removeEmptyParents(dest);
      // git may quote the URL it was given: its credentials stay out of the answer and the log.
      const reason = withoutCredentials(gitFailureReason(coerceError(thrown).message));
      this.deps.log.warn({ codebaseId: id, reason }, 'codebase.clone_failed');
      throw new CairnError('CODEBASE_CLONE_FAILED', codebaseErrorText.cloneFailed(reason), undefined, { cause: thrown });
    }
    this.deps.log.info({ codebaseId: id, path: dest }, 'codebase.clone_completed');
    return this.insert(await this.describe(dest, { id, repositoryUrl: withoutCredentials(url), managed: true }));
  }

  private async registerPath(path: string): Promise<{ codebase: Codebase; created: boolean }> {
    const dir = await checkDirectory(path);
    const facts = await readCheckout(dir);
    const id = facts.remoteUrl ? codebaseIdFromRemote(facts.remoteUrl) : localCodebaseId(dir);
    const existing = await this.deps.store.getCodebase(id);
    if (existing) return { codebase: existing, created: false };
    const repositoryUrl = facts.remoteUrl === null ? null : withoutCredentials(facts.remoteUrl);
    return this.insert(await this.describe(dir, { id, repositoryUrl, managed: false }));
  }

  private async describe(
    dir: string,
    known: { id: string; repositoryUrl: string | null; managed: boolean },
  ): Promise<NewCodebase> {
    const facts = await readCheckout(dir);
    return {
      id: known.id,
      name: known.id,
      repository_url: known.repositoryUrl,
      default_cwd: dir,
      default_branch: facts.branch,
      kind: facts.isRepoRoot ? 'repo' : 'folder',
      managed: known.managed,
      env_scan: await scanEnvFiles(dir, this.now),
    };
  }

  private async insert(codebase: NewCodebase): Promise<{ codebase: Codebase; created: boolean }> {
    const result = await this.deps.store.registerCodebase(codebase);
    if (result.created) {
      const scan = result.codebase.env_scan;
      this.deps.log.info(
        { codebaseId: codebase.id, path: codebase.default_cwd, kind: codebase.kind, scanStatus: scan.status, matchedKeys: scan.keys },
        'codebase.registered',
      );
    }
    return result;
  }
}

/** The real path of an existing, readable directory, or a 400 naming the path. */
async function checkDirectory(path: string): Promise<string> {
  const refuse = (why: string) =>
    new CairnError('CODEBASE_PATH_INVALID', `Cannot register '${path}': ${why}`);
  if (!isAbsolute(path)) throw refuse('the path must be absolute');
  const info = await stat(path).catch(() => undefined);
  if (!info) throw refuse('it does not exist');
  if (!info.isDirectory()) throw refuse('it is not a directory');
  const readable = await access(path, constants.R_OK | constants.X_OK).then(() => true, () => false);
  if (!readable) throw refuse('it is not readable by the Cairn server');
  return realpath(path);
}
