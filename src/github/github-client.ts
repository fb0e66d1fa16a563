/**
 * The part of GitHub's REST API a GitHub hook and a run's `github:` nodes use, over plain `fetch`, each with
 * a time limit, no dependency to keep up. The base URL is the hook's (api.github.com, a GitHub
 * Enterprise Server's `/api/v3`, or a test's local stand-in); the token is sent only there.
 * A failure is a GitHubRequestError that says whether trying again may help. Only the repository
 * (owner/name, checked when the delivery was admitted) and numbers GitHub gave go into a URL; every
 * text a workflow or an agent wrote (a comment, a label, a title, a branch) goes in the JSON body.
 */

export const GITHUB_REQUEST_TIMEOUT_MS = 5000;

export class GitHubRequestError extends Error {
  constructor(
    message: string,
    /** The HTTP status GitHub answered; undefined when no answer came (network, time limit). */
    readonly status: number | undefined,
    /** A network failure, a time limit, 429 or 5xx: the same request may work later. */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'GitHubRequestError';
  }
}

/** `owner/name`. */
export type RepositoryName = string;

export interface IssueComment {
  id: number;
  author: string;
  body: string;
  created_at: string;
}

export interface GitHubClient {
  /** The login of the token's own user (GET /user). */
  authenticatedLogin(): Promise<string>;
  /** A user's permission on the repository: admin, maintain, write, triage, read or none. */
  permission(repo: RepositoryName, user: string): Promise<string>;
  addReaction(repo: RepositoryName, commentId: number, content: 'eyes'): Promise<void>;
  createComment(repo: RepositoryName, issueNumber: number, body: string): Promise<{ id: number; url: string }>;
  updateComment(repo: RepositoryName, commentId: number, body: string): Promise<void>;
  /** At most `last` comments, the newest last, from the last page of the issue's comments. */
  lastComments(repo: RepositoryName, issueNumber: number, total: number, last: number): Promise<IssueComment[]>;
  /** A pull request's head branch. */
  pullHeadBranch(repo: RepositoryName, number: number): Promise<string>;
  /** Adds labels to an issue or pull request (GitHub keeps a label once); answers the issue's labels. */
  addLabels(repo: RepositoryName, issueNumber: number, labels: readonly string[]): Promise<string[]>;
  /** Opens a pull request. */
  createPull(repo: RepositoryName, pull: { title: string; body: string; head: string; base: string; draft: boolean }): Promise<{ number: number; url: string }>;
  /** The newest pull request (open or closed) whose body starts with `prefix`, looking through at most `pages` pages of 100. */
  findPull(repo: RepositoryName, prefix: string, pages: number): Promise<{ number: number; url: string } | undefined>;
  /** The repository's default branch. */
  defaultBranch(repo: RepositoryName): Promise<string>;
  /** The first comment whose body starts with `prefix`, looking through at most `pages` pages of 100. */
  findComment(repo: RepositoryName, issueNumber: number, prefix: string, pages: number): Promise<IssueComment | undefined>;
}

const PAGE = 100;

/** A token as it is made: `refresh` asks for a new one (GitHub refused the last). */
export type TokenSource = (refresh: boolean) => Promise<string>;

/**
 * `token`: a fixed token, or a source of tokens (a GitHub App's installation tokens, app-auth.ts),
 * asked again with `refresh` once when GitHub answers 401. `login`: who the token's user is, when
 * GET /user cannot say (an App's installation token: its bot user).
 */
export function gitHubClient(opts: { apiUrl: string; token: string | TokenSource; login?: () => Promise<string>; fetch?: typeof fetch }): GitHubClient {
  const base = opts.apiUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  const repoPath = (repo: RepositoryName) => repo.split('/').map(encodeURIComponent).join('/');
  const source = opts.token;

  async function tokenFor(refresh: boolean): Promise<string> {
    if (typeof source === 'string') return source;
    try {
      return await source(refresh);
    } catch (err) {
      throw sdkError('GitHub App installation token', err);
    }
  }

  async function call(method: string, path: string, body?: unknown): Promise<any> {
    try {
      return await callWith(await tokenFor(false), method, path, body);
    } catch (err) {
      // An App's token GitHub refuses (revoked, expired early): one new token, one more try.
      if (typeof source === 'string' || !(err instanceof GitHubRequestError) || err.status !== 401) throw err;
      return callWith(await tokenFor(true), method, path, body);
    }
  }

  async function callWith(token: string, method: string, path: string, body?: unknown): Promise<any> {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'cairn',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(GITHUB_REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw new GitHubRequestError(`${method} ${path}: ${(err as Error).message}`, undefined, true);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      let message = text.slice(0, 200);
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
      } catch {
        // Not JSON: the text as it came.
      }
      throw new GitHubRequestError(`${method} ${path}: ${res.status} ${message}`, res.status, res.status === 429 || res.status >= 500);
    }
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      throw new GitHubRequestError(`${method} ${path}: the answer is not JSON`, res.status, false);
    }
  }

  return {
    async authenticatedLogin() {
      if (opts.login) {
        try {
          return await opts.login();
        } catch (err) {
          throw sdkError('GET /app', err);
        }
      }
      return String((await call('GET', '/user')).login);
    },
    async permission(repo, user) {
      try {
        const answer = await call('GET', `/repos/${repoPath(repo)}/collaborators/${encodeURIComponent(user)}/permission`);
        // role_name says `maintain` where permission says `write`; either names the strongest.
        return String(answer.role_name ?? answer.permission ?? 'none');
      } catch (err) {
        if (err instanceof GitHubRequestError && err.status === 404) return 'none';
        throw err;
      }
    },
    async addReaction(repo, commentId, content) {
      await call('POST', `/repos/${repoPath(repo)}/issues/comments/${commentId}/reactions`, { content });
    },
    async createComment(repo, issueNumber, body) {
      const made = await call('POST', `/repos/${repoPath(repo)}/issues/${issueNumber}/comments`, { body });
      return { id: Number(made.id), url: String(made.html_url ?? '') };
    },
    async updateComment(repo, commentId, body) {
      await call('PATCH', `/repos/${repoPath(repo)}/issues/comments/${commentId}`, { body });
    },
    async lastComments(repo, issueNumber, total, last) {
      if (total <= 0 || last <= 0) return [];
      const page = Math.max(1, Math.ceil(total / PAGE));
      const items = (await call('GET', `/repos/${repoPath(repo)}/issues/${issueNumber}/comments?per_page=${PAGE}&page=${page}`)) as any[];
      return items.slice(-last).map((c) => ({ id: Number(c.id), author: String(c.user?.login ?? ''), body: String(c.body ?? ''), created_at: String(c.created_at ?? '') }));
    },
    async findComment(repo, issueNumber, prefix, pages) {
      for (let page = 1; page <= pages; page++) {
        const items = (await call('GET', `/repos/${repoPath(repo)}/issues/${issueNumber}/comments?per_page=${PAGE}&page=${page}`)) as any[];
        const found = items.find((c) => typeof c.body === 'string' && c.body.startsWith(prefix));
        if (found) return { id: Number(found.id), author: String(found.user?.login ?? ''), body: String(found.body), created_at: String(found.created_at ?? '') };
        if (items.length < PAGE) return undefined;
      }
      return undefined;
    },
    async addLabels(repo, issueNumber, labels) {
      const answer = (await call('POST', `/repos/${repoPath(repo)}/issues/${issueNumber}/labels`, { labels })) as any[];
      return (Array.isArray(answer) ? answer : []).map((l) => String(l?.name ?? ''));
    },
    async createPull(repo, pull) {
      const made = await call('POST', `/repos/${repoPath(repo)}/pulls`, pull);
      return { number: Number(made.number), url: String(made.html_url ?? '') };
    },
    async findPull(repo, prefix, pages) {
      for (let page = 1; page <= pages; page++) {
        const items = (await call('GET', `/repos/${repoPath(repo)}/pulls?state=all&sort=created&direction=desc&per_page=${PAGE}&page=${page}`)) as any[];
        const found = items.find((p) => typeof p.body === 'string' && p.body.startsWith(prefix));
        if (found) return { number: Number(found.number), url: String(found.html_url ?? '') };
        if (items.length < PAGE) return undefined;
      }
      return undefined;
    },
    async defaultBranch(repo) {
      return String((await call('GET', `/repos/${repoPath(repo)}`)).default_branch);
    },
    async pullHeadBranch(repo, number) {
      return String((await call('GET', `/repos/${repoPath(repo)}/pulls/${number}`)).head.ref);
    },
  };
}

/** Whether a permission lets its user start runs: write, maintain or admin. */
export const canStartRuns = (permission: string): boolean => ['admin', 'maintain', 'write'].includes(permission);

/** A failure of GitHub's SDK (app-auth.ts) as a GitHubRequestError: its HTTP status, if GitHub answered. */
function sdkError(what: string, err: unknown): GitHubRequestError {
  const status = (err as { status?: unknown }).status;
  const code = typeof status === 'number' && status > 0 ? status : undefined;
  return new GitHubRequestError(`${what}: ${(err as Error).message}`, code, code === undefined || code === 429 || code >= 500);
}
