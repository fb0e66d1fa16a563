import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server that speaks the part of the GitHub REST API the bundled `fix-github-issue`
 * workflow and the `gh` stand-in (test/fixtures/gh) use: an issue and its comments, and pull
 * requests (open one, list them by head branch and state, read one with whether it merges cleanly,
change its base, comment on one). Answers
 * have GitHub's shapes and status codes (404 with `{ message: 'Not Found' }`, 422 on a pull
 * request whose head is not pushed, 401 without a token when one is required); every request is
 * recorded.
 */

export interface GitHubIssue {
  number: number;
  title: string;
  body: string;
  labels?: string[];
  comments?: { author: string; body: string }[];
}

export interface RecordedGitHubRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface GitHubServer {
  url: string;
  requests: RecordedGitHubRequest[];
  pulls: { number: number; title: string; body: string; head: string; base: string; draft: boolean }[];
  /** Comments posted on pull requests (`POST /issues/{number}/comments` on a pull request's number). */
  pullComments: { number: number; body: string }[];
  close(): Promise<void>;
}

export async function startGitHubServer(opts: {
  repository: string;
  issues: GitHubIssue[];
  /** Whether a pushed branch exists, so a pull request's head can be checked (a real repository's refs). */
  branchExists?: (branch: string) => boolean;
  /** The token requests must carry (`Authorization: Bearer <token>`); absent: any. */
  token?: string;
  /** Pull requests open before the test's workflow runs. */
  pulls?: Omit<GitHubServer['pulls'][number], 'number'>[];
  /** Whether a pull request merges cleanly into its base (a real repository's refs); absent: GitHub's "not computed yet" (null). */
  mergeable?: (pull: GitHubServer['pulls'][number]) => boolean;
}): Promise<GitHubServer> {
  const requests: RecordedGitHubRequest[] = [];
  const pulls: GitHubServer['pulls'] = (opts.pulls ?? []).map((p, i) => ({ ...p, number: i + 1 }));
  const pullComments: GitHubServer['pullComments'] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(value));
      };
      if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
        send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
        return;
      }
      const base = `/repos/${opts.repository}`;
      const commentOnPull = new RegExp(`^${base}/issues/(\\d+)/comments$`).exec(path);
      if (req.method === 'POST' && commentOnPull && pulls.some((p) => p.number === Number(commentOnPull[1]))) {
        if (typeof body?.body !== 'string') return send(422, { message: 'Validation Failed', errors: [{ resource: 'IssueComment', code: 'missing_field', field: 'body' }] });
        pullComments.push({ number: Number(commentOnPull[1]), body: body.body });
        return send(201, { id: pullComments.length, body: body.body, html_url: `https://github.com/${opts.repository}/pull/${commentOnPull[1]}#issuecomment-${pullComments.length}` });
      }
      const issueMatch = new RegExp(`^${base}/issues/(\\d+)(/comments)?$`).exec(path);
      if (req.method === 'GET' && issueMatch) {
        const issue = opts.issues.find((i) => i.number === Number(issueMatch[1]));
        if (!issue) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
        if (issueMatch[2]) {
          return send(200, (issue.comments ?? []).map((c, i) => ({ id: i + 1, user: { login: c.author }, body: c.body })));
        }
        return send(200, {
          number: issue.number,
          title: issue.title,
          body: issue.body,
          state: 'open',
          labels: (issue.labels ?? []).map((name) => ({ name })),
          comments: issue.comments?.length ?? 0,
          html_url: `https://github.com/${opts.repository}/issues/${issue.number}`,
        });
      }
      const query = new URL(req.url ?? '', 'http://x').searchParams;
      if (req.method === 'GET' && path === `${base}/pulls`) {
        // `head` is `owner:branch`; the state of every pull request here is open.
        const head = query.get('head')?.replace(/^[^:]*:/, '');
        const state = query.get('state') ?? 'open';
        return send(200, pulls.filter((p) => (head === undefined || p.head === head) && (state === 'open' || state === 'all')).map(restPull));
      }
      const pullMatch = new RegExp(`^${base}/pulls/(\\d+)$`).exec(path);
      if (pullMatch && (req.method === 'GET' || req.method === 'PATCH')) {
        const pull = pulls.find((p) => p.number === Number(pullMatch[1]));
        if (!pull) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
        if (req.method === 'PATCH' && typeof body?.base === 'string') pull.base = body.base;
        return send(200, restPull(pull));
      }
      if (req.method === 'POST' && path === `${base}/pulls`) {
        const { title, body: text, head, base: into, draft } = body ?? {};
        if (typeof title !== 'string' || typeof head !== 'string' || typeof into !== 'string') {
          return send(422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'missing_field' }] });
        }
        if (opts.branchExists && !opts.branchExists(head)) {
          return send(422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }] });
        }
        const pull = { number: pulls.length + 1, title, body: String(text ?? ''), head, base: into, draft: draft === true };
        pulls.push(pull);
        return send(201, restPull(pull));
      }
      send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    });
  });
  /** A pull request as the REST API shows it (`head` and `base` are objects there). */
  const restPull = (p: GitHubServer['pulls'][number]) => {
    const mergeable = opts.mergeable ? opts.mergeable(p) : null;
    return {
      number: p.number, title: p.title, body: p.body, draft: p.draft, state: 'open',
      mergeable, mergeable_state: mergeable === null ? 'unknown' : mergeable ? 'clean' : 'dirty',
      html_url: `https://github.com/${opts.repository}/pull/${p.number}`,
      head: { ref: p.head, label: `${opts.repository.split('/')[0]}:${p.head}` },
      base: { ref: p.base },
    };
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    pulls,
    pullComments,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
