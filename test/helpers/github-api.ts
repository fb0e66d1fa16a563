import { createPublicKey, createVerify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the part of GitHub's REST API a GitHub hook calls (src/github/
 * github-client.ts): the token's user, a collaborator's permission, an issue's comments (paged as
 * GitHub pages them), a pull request, creating and editing comments, and reactions; and what a
 * run's `github:` nodes write: labels, pull requests (opened, listed newest first) and the
 * repository's default branch (`main`). Answers have GitHub's shapes and status codes (401 without
 * the token, 404 `{ message: 'Not Found' }`); every request is recorded, and a test can make the
 * next requests to a path fail, or lose their answers (the write is made, then a 502 answers it).
 */

export interface StandInComment {
  id: number;
  user: { login: string; type: 'User' | 'Bot' };
  body: string;
  created_at: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: any;
}

export interface GitHubApi {
  url: string;
  requests: RecordedRequest[];
  /** Comments by issue number (those a test seeds and those the hook writes). */
  comments: Map<number, StandInComment[]>;
  /** Labels by issue number. */
  labels: Map<number, string[]>;
  /** Pull requests opened, oldest first. */
  pulls: { number: number; title: string; body: string; head: string; base: string; draft: boolean }[];
  /** The next `times` requests whose `METHOD path` (and JSON body's `body` field, when given) match are carried out, then answered 502 as if the answer were lost. */
  loseAnswerNext(match: RegExp, opts?: { times?: number; body?: RegExp }): void;
  /** The answers of the next `times` requests whose `METHOD path` matches: this status. */
  failNext(match: RegExp, status: number, times?: number): void;
  /** The recorded requests whose `METHOD path` matches. */
  sent(match: RegExp): RecordedRequest[];
  /** The installation tokens made for the App so far, in order. */
  appTokens: string[];
  /** Refuses every installation token made so far (401), as GitHub does a revoked or expired one. */
  revokeAppTokens(): void;
  close(): Promise<void>;
}

/** A GitHub App the stand-in knows: JWTs signed with its private key buy installation tokens. */
export interface StandInApp {
  id: number;
  slug: string;
  installationId: number;
  /** The App's public key (PEM), to check the JWTs' RS256 signatures. */
  publicKey: string;
}

export async function startGitHubApi(opts: {
  token: string;
  /** The token's own user (GET /user). */
  login: string;
  /** Permission (role_name) by user; others have `read`. */
  permissions: Record<string, string>;
  /** Pull requests' head branches by number. */
  pulls?: Record<number, string>;
  /** A GitHub App (POST /app/installations/{id}/access_tokens, GET /app): its installation tokens are taken like `token`. */
  app?: StandInApp;
}): Promise<GitHubApi> {
  const appKey: KeyObject | undefined = opts.app ? createPublicKey(opts.app.publicKey) : undefined;
  const appTokens: string[] = [];
  const liveAppTokens = new Set<string>();
  /** The App's id when `authorization` is `bearer <a JWT it signed, not expired>`, else undefined. */
  const appOfJwt = (authorization: string | undefined): number | undefined => {
    const jwt = /^bearer (.+)$/i.exec(authorization ?? '')?.[1];
    if (!jwt || !appKey || !opts.app) return undefined;
    const [header, payload, signature] = jwt.split('.');
    if (!header || !payload || !signature) return undefined;
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'RS256') return undefined;
    if (!createVerify('RSA-SHA256').update(`${header}.${payload}`).verify(appKey, Buffer.from(signature, 'base64url'))) return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { iss?: unknown; exp?: number; iat?: number };
    const now = Date.now() / 1000;
    if (Number(claims.iss) !== opts.app.id || !claims.exp || claims.exp < now || claims.exp - (claims.iat ?? 0) > 600 + 60) return undefined;
    return opts.app.id;
  };
  const requests: RecordedRequest[] = [];
  const comments = new Map<number, StandInComment[]>();
  const failures: { match: RegExp; status: number; left: number }[] = [];
  const lost: { match: RegExp; body: RegExp | undefined; left: number }[] = [];
  const labels = new Map<number, string[]>();
  const pulls: GitHubApi['pulls'] = [];
  let nextId = 9000;

  const server: Server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const path = url.pathname;
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      requests.push({ method: req.method ?? '', path, query: url.searchParams, authorization: req.headers.authorization, body });
      const lose = lost.find((l) => l.left > 0 && l.match.test(`${req.method} ${path}`) && (!l.body || l.body.test(String(body?.body ?? ''))));
      if (lose) lose.left--;
      const send = (status: number, value?: unknown) => {
        if (lose && status < 300) [status, value] = [502, { message: 'stand-in: the answer was lost' }];
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(value === undefined ? '' : JSON.stringify(value));
      };
      if (opts.app && `${req.method} ${path}` === `POST /app/installations/${opts.app.installationId}/access_tokens`) {
        if (appOfJwt(req.headers.authorization) === undefined) return send(401, { message: 'A JSON web token could not be decoded' });
        const token = `ghs_${opts.app.slug}_${appTokens.length + 1}`;
        appTokens.push(token);
        liveAppTokens.add(token);
        return send(201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: { issues: 'write' }, repository_selection: 'all' });
      }
      if (opts.app && `${req.method} ${path}` === 'GET /app') {
        if (appOfJwt(req.headers.authorization) === undefined) return send(401, { message: 'A JSON web token could not be decoded' });
        return send(200, { id: opts.app.id, slug: opts.app.slug, name: opts.app.slug });
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (bearer !== opts.token && !(bearer !== undefined && liveAppTokens.has(bearer))) return send(401, { message: 'Bad credentials' });
      // An installation token is not a user's: GET /user is refused to it, as GitHub refuses it.
      if (bearer !== opts.token && `${req.method} ${path}` === 'GET /user') return send(403, { message: 'Resource not accessible by integration' });
      const key = `${req.method} ${path}`;
      const failure = failures.find((f) => f.left > 0 && f.match.test(key));
      if (failure) {
        failure.left--;
        return send(failure.status, { message: `stand-in failure ${failure.status}` });
      }
      let m: RegExpExecArray | null;
      if (key === 'GET /user') return send(200, { login: opts.login, type: 'User' });
      if ((m = /^GET \/repos\/[^/]+\/[^/]+\/collaborators\/([^/]+)\/permission$/.exec(key))) {
        const role = opts.permissions[decodeURIComponent(m[1]!)] ?? 'read';
        const permission = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
        return send(200, { permission, role_name: role, user: { login: m[1] } });
      }
      if ((m = /^GET \/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(key))) {
        const all = comments.get(Number(m[1])) ?? [];
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        const page = Number(url.searchParams.get('page') ?? 1);
        return send(200, all.slice((page - 1) * perPage, page * perPage));
      }
      if ((m = /^POST \/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(key))) {
        const made: StandInComment = { id: nextId++, user: { login: opts.login, type: 'User' }, body: String(body?.body ?? ''), created_at: new Date().toISOString() };
        comments.set(Number(m[1]), [...(comments.get(Number(m[1])) ?? []), made]);
        return send(201, { ...made, html_url: `https://github.com/${path.split('/').slice(2, 4).join('/')}/issues/${m[1]}#issuecomment-${made.id}` });
      }
      if ((m = /^PATCH \/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(key))) {
        const found = [...comments.values()].flat().find((c) => c.id === Number(m![1]));
        if (!found) return send(404, { message: 'Not Found' });
        found.body = String(body?.body ?? '');
        return send(200, found);
      }
      if (/^POST \/repos\/[^/]+\/[^/]+\/issues\/comments\/\d+\/reactions$/.test(key)) return send(201, { id: nextId++, content: body?.content });
      if ((m = /^POST \/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/labels$/.exec(key))) {
        if (!Array.isArray(body?.labels) || !body.labels.every((l: unknown) => typeof l === 'string')) return send(422, { message: 'Validation Failed' });
        const now = labels.get(Number(m[1])) ?? [];
        labels.set(Number(m[1]), [...now, ...body.labels.filter((l: string) => !now.includes(l))]);
        return send(200, labels.get(Number(m[1]))!.map((name) => ({ name })));
      }
      if (/^GET \/repos\/[^/]+\/[^/]+$/.test(key)) return send(200, { full_name: path.slice('/repos/'.length), default_branch: 'main' });
      if (/^POST \/repos\/[^/]+\/[^/]+\/pulls$/.test(key)) {
        const { title, body: text, head, base, draft } = body ?? {};
        if (typeof title !== 'string' || typeof head !== 'string' || typeof base !== 'string') return send(422, { message: 'Validation Failed' });
        const pull = { number: 100 + pulls.length, title, body: String(text ?? ''), head, base, draft: draft === true };
        pulls.push(pull);
        return send(201, { ...pull, html_url: `https://github.com/${path.split('/').slice(2, 4).join('/')}/pull/${pull.number}` });
      }
      if (/^GET \/repos\/[^/]+\/[^/]+\/pulls$/.test(key)) {
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        const page = Number(url.searchParams.get('page') ?? 1);
        const newest = [...pulls].reverse().map((p) => ({ ...p, html_url: `https://github.com/${path.split('/').slice(2, 4).join('/')}/pull/${p.number}` }));
        return send(200, newest.slice((page - 1) * perPage, page * perPage));
      }
      if ((m = /^GET \/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/.exec(key))) {
        const head = opts.pulls?.[Number(m[1])];
        return head === undefined ? send(404, { message: 'Not Found' }) : send(200, { number: Number(m[1]), head: { ref: head } });
      }
      return send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    comments,
    labels,
    pulls,
    loseAnswerNext: (match, opts = {}) => void lost.push({ match, body: opts.body, left: opts.times ?? 1 }),
    failNext: (match, status, times = 1) => void failures.push({ match, status, left: times }),
    appTokens,
    revokeAppTokens: () => liveAppTokens.clear(),
    sent: (match) => requests.filter((r) => match.test(`${r.method} ${r.path}`)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
