import { simpleGit, CheckRepoActions, type SimpleGit } from 'simple-git';

/** What registration needs to know about a directory from git. */
export interface CheckoutFacts {
  isRepoRoot: boolean;
  /** The fetch URL of `origin`, else of the first remote; null without remotes. */
  remoteUrl: string | null;
  /** The branch HEAD names (an unborn branch included); null when detached or not a repo. */
  branch: string | null;
}

/** Ambient variables kept for git: how the user who started Cairn reaches private remotes. */
const keptGitVariables = ['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_ASKPASS', 'SSH_ASKPASS'];

/**
 * simple-git guards every GIT_* variable and a few others (EDITOR, PAGER, PREFIX, ...): it drops
 * them from the inherited environment and refuses to run when one is passed explicitly. Git gets
 * the server's environment without those, plus the few kept above (they come from the user who
 * started Cairn, never from a request), and is told never to prompt on a terminal it does not have.
 */
export function git(baseDir?: string): SimpleGit {
  const guarded = /^(GIT_.*|EDITOR|VISUAL|PAGER|PREFIX|SSH_ASKPASS)$/i;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && (!guarded.test(key) || keptGitVariables.includes(key))) env[key] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  const client = simpleGit({
    ...(baseDir ? { baseDir } : {}),
    allowEnvironment: [...keptGitVariables, 'GIT_TERMINAL_PROMPT'],
    unsafe: { allowUnsafeSshCommand: true, allowUnsafeAskPass: true },
  });
  return client.env(env);
}

/** Reads the facts of an existing directory. A directory inside a repo but not its root counts as not a repo. */
export async function readCheckout(dir: string): Promise<CheckoutFacts> {
  const client = git(dir);
  if (!(await client.checkIsRepo(CheckRepoActions.IS_REPO_ROOT))) return { isRepoRoot: false, remoteUrl: null, branch: null };
  const remotes = await client.getRemotes(true);
  const remote = remotes.find((r) => r.name === 'origin') ?? remotes[0];
  const branch = await client
    .raw(['symbolic-ref', '--short', '-q', 'HEAD'])
    .then((out) => out.trim() || null)
    .catch(() => null);
  return { isRepoRoot: true, remoteUrl: remote?.refs.fetch || null, branch };
}

/** `git clone <url> <dest>`; dest must not exist or be empty. Rejects with git's own message. */
export async function cloneRepository(url: string, dest: string): Promise<void> {
  await git().clone(url, dest);
}

/**
 * The line of a failed git command's output that names the problem: its first `fatal:` line,
 * without the prefix (`'…/widgets.git' does not appear to be a git repository`). The lines after
 * it are advice (`Please make sure you have the correct access rights / and the repository
 * exists.`), not the reason. Output without one: its last line.
 */
export function gitFailureReason(output: string): string {
  const lines = output.split('\n').map((line) => line.trim()).filter(Boolean);
  const fatal = lines.find((line) => line.startsWith('fatal:'));
  return fatal?.slice('fatal:'.length).trim() || lines.at(-1) || 'git clone failed';
}
