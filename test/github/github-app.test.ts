import { createHmac, generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../helpers/app.js';
import { startGitHubApi, type GitHubApi } from '../helpers/github-api.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A GitHub hook that signs in as a GitHub App: the real API and in-process supervisor, real
 * HMAC-signed deliveries, and the GitHub stand-in checking each JWT's RS256 signature with the
 * App's public key before it makes an installation token. GitHub's own SDK (@octokit/auth-app)
 * makes the JWTs and keeps the tokens.
 */

const SECRET = 'github-app-hook-secret-0123456789';
const REPO = 'octo/app-widgets';
const APP = { id: 4242, slug: 'cairn-app', installationId: 77 };
const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

let home: TempHome;
let t: TestApp;
let url: string;
let gh: GitHubApi;

beforeAll(async () => {
  home = await makeTempHome();
  await writeHomeWorkflow(home, 'triage', 'name: triage\ndescription: looks at an issue\ninputs:\n  github_number: { required: true }\nnodes:\n  - id: look\n    bash: \'printf "#%s" "$INPUTS.github_number"\'\n');
  gh = await startGitHubApi({ token: 'no-personal-token-here', login: 'nobody', permissions: { alice: 'write' }, app: { ...APP, publicKey } });
  home.defer(() => gh.close());
  await startSupervisor(home);
  t = await makeTestApp(home, { githubRetry: { tries: 2, firstDelayMs: 10 } });
  url = await listen(t.app);
}, 60_000);
afterAll(() => home.close());

const post = (path: string, body: unknown, method = 'POST') =>
  fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const hookBody = (name: string, github: Record<string, unknown>) => ({ name, workflow: 'triage', signature: 'github', secret: SECRET, github: { apiUrl: gh.url, ...github } });
const appAccess = { appId: APP.id, installationId: APP.installationId, privateKey };

let deliveries = 0;
async function comment(number: number, body: string, login = 'alice') {
  const raw = JSON.stringify({
    action: 'created',
    issue: { number, title: `Issue ${number}`, body: '', html_url: `https://github.com/${REPO}/issues/${number}`, comments: 0 },
    comment: { id: 700 + number, body, user: { login, type: 'User' } },
    repository: { full_name: REPO },
    sender: { login, type: 'User' },
  });
  const res = await fetch(`${url}/api/hooks/app`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': `app-${++deliveries}`, 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}` },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as { runId: string | null } };
}

it('refuses an App with a token beside it, a key that is not PEM, and a token replacement; stores nothing for a refusal', async () => {
  const both = await post('/api/hooks', hookBody('both', { token: 'ghp_x', app: appAccess }));
  expect([both.status, ((await both.json()) as { error: string }).error]).toEqual([400, 'github: give either token (a personal access or installation token) or app (appId, installationId, privateKey), not both']);
  const neither = await post('/api/hooks', hookBody('neither', {}));
  expect(neither.status).toBe(400);
  const notPem = await post('/api/hooks', hookBody('not-pem', { app: { ...appAccess, privateKey: 'ssh-rsa AAAA' } }));
  expect([notPem.status, ((await notPem.json()) as { error: string }).error]).toEqual([400, expect.stringContaining('github.app.privateKey: the App’s private key in PEM')]);
  expect(((await (await fetch(`${url}/api/hooks`)).json()) as { hooks: unknown[] }).hooks).toEqual([]);
});

/** docs/github.md's request that makes an App hook, with this test's key, secret and stand-in. */
function docsAppHook(): unknown {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/github.md', import.meta.url)), 'utf8');
  const section = doc.slice(doc.indexOf('## Signing in as a GitHub App'));
  const body = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!) as { secret: string; github: { apiUrl?: string; app: { privateKey: string } } };
  expect(body.github.app.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n…/);
  body.secret = SECRET;
  body.github.app.privateKey = privateKey;
  body.github.apiUrl = gh.url;
  return body;
}

it('signs in as the App (docs/github.md’s request): its key sealed, an installation token made once and used for the delivery’s calls and the status comment', async () => {
  const made = await post('/api/hooks', docsAppHook());
  expect(made.status).toBe(201);
  const shown = JSON.stringify(await made.json());
  expect(shown).toContain('"app":{"app_id":4242,"installation_id":77}');
  expect(shown).not.toContain('PRIVATE KEY');
  for (const file of [home.paths.database, `${home.paths.database}-wal`]) expect(existsSync(file) && readFileSync(file).includes('PRIVATE KEY')).toBe(false);
  const replace = await post('/api/hooks/app/github-token', { token: 'ghp_new' }, 'PUT');
  expect([replace.status, ((await replace.json()) as { error: string }).error]).toEqual([400, expect.stringContaining('signs in as a GitHub App and makes its own tokens')]);

  const first = await comment(11, '/cairn run triage');
  expect(first.status).toBe(202);
  const status = await waitFor(() => gh.comments.get(11)?.find((c) => c.body.includes('✅ completed')), { what: 'the status comment at the end' });
  expect(status.body).toContain('#11');
  // Who the App is came from GET /app with a JWT; every other call carried its installation token.
  expect(gh.sent(/^GET \/app$/).length).toBeGreaterThan(0);
  expect(gh.appTokens).toEqual(['ghs_cairn-app_1']);
  const repoCalls = gh.requests.filter((r) => r.path.startsWith(`/repos/${REPO}/`));
  expect(repoCalls.length).toBeGreaterThan(2);
  expect(new Set(repoCalls.map((r) => r.authorization))).toEqual(new Set(['Bearer ghs_cairn-app_1']));

  // A second delivery uses the token in hand.
  expect((await comment(12, '/cairn run triage')).status).toBe(202);
  await waitFor(() => gh.comments.get(12)?.find((c) => c.body.includes('✅ completed')));
  expect(gh.appTokens).toHaveLength(1);
});

it('makes a new installation token when GitHub refuses the one in hand, and goes on', async () => {
  gh.revokeAppTokens();
  const sent = await comment(13, '/cairn run triage');
  expect(sent.status).toBe(202);
  await waitFor(() => gh.comments.get(13)?.find((c) => c.body.includes('✅ completed')), { what: 'the status comment with the new token' });
  expect(gh.appTokens).toEqual(['ghs_cairn-app_1', 'ghs_cairn-app_2']);
  // A reader is still checked, with the new token: no run.
  const reader = await comment(14, '/cairn run triage', 'eve');
  expect([reader.status, reader.body.runId]).toEqual([200, null]);
});
