import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where a user's Cairn files live. `CAIRN_HOME` overrides the default `~/.cairn`. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CAIRN_HOME?.trim();
  return configured ? resolve(configured) : join(homedir(), '.cairn');
}

/** The paths under a Cairn home; one function so no module spells a path on its own. */
export function homePaths(home: string) {
  return {
    home,
    database: join(home, 'db', 'cairn.sqlite'),
    config: join(home, 'config.yaml'),
    /** The install key (64 hex characters), made on first start unless TOKEN_ENCRYPTION_KEY is set. */
    installKey: join(home, 'install.key'),
    workflows: join(home, 'workflows'),
    commands: join(home, 'commands'),
    runDir: join(home, 'run'),
    apiPid: join(home, 'run', 'api.pid'),
    supervisorPid: join(home, 'run', 'supervisor.pid'),
    /** Where the running server listens (`{ url, pid, startedAt }`), for the CLI. */
    serverFile: join(home, 'run', 'server.json'),
    /** The last answer of the npm registry to `/api/update-check` (packaged builds only). */
    updateCheck: join(home, 'run', 'update-check.json'),
    /** Multipart uploads being received, before their run exists (moved into the run, or removed). */
    uploads: join(home, 'tmp', 'uploads'),
    workspaces: join(home, 'workspaces'),
    /** The shared workspace of one `owner/repo` codebase (its clone and, later, its worktrees). */
    codebaseWorkspace: (owner: string, repo: string) => join(home, 'workspaces', owner, repo),
    /** The worktree `name` (a run id) of the `owner/repo` codebase. */
    codebaseWorktree: (owner: string, repo: string, name: string) => join(home, 'workspaces', owner, repo, 'worktrees', name),
    /** `$ARTIFACTS_DIR` of a run on the `owner/repo` codebase (outside every checkout). */
    codebaseRunArtifacts: (owner: string, repo: string, runId: string) =>
      join(home, 'workspaces', owner, repo, 'artifacts', 'runs', runId),
    /** `$STATE_DIR` of every run on the `owner/repo` codebase: kept across its runs (outside every checkout). */
    codebaseState: (owner: string, repo: string) => join(home, 'workspaces', owner, repo, 'state'),
    /** Where Cairn clones the `owner/repo` codebase. */
    codebaseSource: (owner: string, repo: string) => join(home, 'workspaces', owner, repo, 'source'),
    scripts: join(home, 'scripts'),
    /** Everything Cairn keeps for one run (its scratch folder and its artifacts): deleted with the run. */
    runFolder: (runId: string) => join(home, 'workspaces', '_runs', runId),
    /** Files sent with a conversation's messages (the platform id matches ^[\w-]+$: one safe segment). */
    conversationFiles: (platformId: string) => join(home, 'conversations', platformId, 'files'),
    /** Working directory for a run that was not started inside a project. */
    scratch: (runId: string) => join(home, 'workspaces', '_runs', runId, 'work'),
    /** `$ARTIFACTS_DIR` of a run that has no codebase. */
    runArtifacts: (runId: string) => join(home, 'workspaces', '_runs', runId, 'artifacts'),
  };
}
export type HomePaths = ReturnType<typeof homePaths>;
