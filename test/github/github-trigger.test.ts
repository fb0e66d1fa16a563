import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../helpers/app.js';
import { startGitHubApi, type GitHubApi } from '../helpers/github-api.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * GitHub as a trigger, end to end in one process: real HMAC-signed deliveries to the real API
 * route on a free port, the real supervisor running the runs, the home's real SQLite database, and
 * a local GitHub REST stand-in that records what the hook asked and wrote. One server, one
 * stand-in and one hook for the file; each test its own issue numbers and delivery ids.
 */

const SECRET = 'github-hook-secret-0123456789abcdef';
const TOKEN = 'github_pat_0123456789abcdefTOKEN';
const REPO = 'octo/widgets';

let home: TempHome;
let t: TestApp;
let url: string;
let gh: GitHubApi;
let probe: Database.Database;

beforeAll(async () => {
  home = await makeTempHome();
  await writeHomeWorkflow(
    home,
    'triage',
    `name: triage
description: Looks at an issue
inputs:
  github_number: { required: true }
  github_title: { default: '' }
  github_body: { default: '' }
  github_comments: { default: '' }
  github_head_branch: { default: '' }
  github_args: { default: '' }
  github_kind: { default: '' }
  github_author: { default: '' }
nodes:
  - id: look
    bash: 'printf "#%s %s by %s; args=[%s]" "$INPUTS.github_number" "$INPUTS.github_title" "$INPUTS.github_author" "$INPUTS.github_args"'
`,
  );
  await writeHomeWorkflow(home, 'breaks', 'name: breaks\ndescription: fails\nnodes:\n  - id: boom\n    bash: "echo no good >&2; exit 3"\n');
  await writeHomeWorkflow(
    home,
    'gated',
    'name: gated\ndescription: waits for an approval\nnodes:\n  - id: review\n    approval: { message: "go?" }\n  - id: after\n    depends_on: [review]\n    bash: printf done\n',
  );
  gh = await startGitHubApi({ token: TOKEN, login: 'cairn-bot', permissions: { alice: 'write', mona: 'maintain', root: 'admin', dana: 'write', eve: 'read' }, pulls: { 77: 'feature/x' } });
  home.defer(() => gh.close());
  await startSupervisor(home);
  t = await makeTestApp(home, { githubRetry: { tries: 3, firstDelayMs: 10 } });
  url = await listen(t.app);
  probe = new Database(home.paths.database, { readonly: true });
  home.defer(() => probe.close());
  const res = await fetch(`${url}/api/hooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'gh', workflow: 'triage', signature: 'github', secret: SECRET,
      github: { token: TOKEN, apiUrl: gh.url, workflows: ['breaks', 'gated'], labels: ['cairn'], dashboardUrl: 'https://cairn.example.com/' },
    }),
  });
  expect(res.status).toBe(201);
}, 60_000);
afterAll(() => home.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (res: Response): Promise<any> => res.json();

let deliveries = 0;
/** A delivery signed as GitHub signs one; answers the response and the delivery id. */
async function deliver(event: string, payload: unknown, deliveryId = `d-${++deliveries}`, hook = 'gh'): Promise<{ res: Response; body: any; deliveryId: string }> {
  const raw = JSON.stringify(payload);
  const res = await fetch(`${url}/api/hooks/${hook}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`,
    },
    body: raw,
  });
  return { res, body: await json(res), deliveryId };
}

const user = (login: string, type: 'User' | 'Bot' = 'User') => ({ login, type });
const issue = (number: number, extra: Record<string, unknown> = {}) => ({
  number, title: `Issue ${number}`, body: `Body of ${number}`, html_url: `https://github.com/${REPO}/issues/${number}`, comments: 0, ...extra,
});
let commentIds = 500;
const commentEvent = (number: number, body: string, login = 'alice', extra: { type?: 'User' | 'Bot'; issue?: Record<string, unknown> } = {}) => ({
  action: 'created',
  issue: issue(number, extra.issue),
  comment: { id: ++commentIds, body, user: user(login, extra.type) },
  repository: { full_name: REPO },
  sender: user(login, extra.type),
});
const writesTo = (number: number) => gh.sent(new RegExp(`^POST /repos/${REPO}/issues/${number}/comments$`));
const ignoredReasonOf = (deliveryId: string) =>
  (probe.prepare('SELECT ignored, run_id FROM hook_deliveries WHERE delivery_id = ?').get(deliveryId) as { ignored: string | null; run_id: string | null } | undefined);

/** The run's one status comment on the stand-in, once it says `text`. */
async function statusComment(number: number, text: string): Promise<string> {
  return waitFor(() => gh.comments.get(number)?.find((c) => c.body.startsWith('<!-- cairn-run:') && c.body.includes(text))?.body, { what: `status comment with ${text}` });
}

describe('configuring a GitHub hook', () => {
  it('shows its settings and never its token, which the database holds only sealed', async () => {
    const shown = await json(await fetch(`${url}/api/hooks/gh`));
    expect(shown.github).toEqual({
      api_url: gh.url, workflows: ['breaks', 'gated'], labels: ['cairn'], on_issue_opened: false, deny_reply: true, dashboard_url: 'https://cairn.example.com/', app: null,
    });
    expect(JSON.stringify(shown)).not.toContain(TOKEN);
    const row = probe.prepare('SELECT sealed_github_token, github FROM hooks WHERE name = ?').get('gh') as { sealed_github_token: string; github: string };
    expect(row.sealed_github_token).not.toContain(TOKEN);
    expect(row.github).not.toContain(TOKEN);
  });

  it('refuses GitHub settings on a generic hook, a bad API URL and a workflow that is not there, naming each; stores nothing', async () => {
    const add = (extra: Record<string, unknown>) =>
      fetch(`${url}/api/hooks`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'refused', workflow: 'triage', signature: 'github', secret: SECRET, github: { token: TOKEN }, ...extra }),
      });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ signature: 'generic' }, /set signature to github/],
      [{ github: { token: TOKEN, apiUrl: 'ftp://example.com' } }, /github.apiUrl: an http\(s\) URL/],
      [{ github: { token: TOKEN, apiUrl: 'https://user:pw@example.com' } }, /without credentials/],
      [{ github: { token: 'has spaces in it' } }, /github.token: printable characters without spaces/],
      [{ github: { token: TOKEN, workflows: ['../../etc/passwd'] } }, /passwd/],
      [{ github: { token: TOKEN, extra: true } }, /extra/],
    ];
    for (const [extra, error] of cases) {
      const res = await add(extra);
      expect(res.status, JSON.stringify(extra)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(extra)).toBeLessThan(500);
      expect((await json(res)).error, JSON.stringify(extra)).toMatch(error);
    }
    expect((await fetch(`${url}/api/hooks/refused`)).status).toBe(404);
  });
});

describe('an issue comment that starts a run', () => {
  it('checks the writer, reacts 👀, starts the run with the issue as inputs, and keeps one status comment to the result', async () => {
    const hostile = '$(touch ' + join(home.home, 'pwned') + ') `touch ' + join(home.home, 'pwned2') + '` "; exit 1; \'';
    gh.comments.set(101, [
      { id: 1, user: user('bob'), body: 'first', created_at: '2026-01-01T00:00:00Z' },
      { id: 2, user: user('carol'), body: 'second', created_at: '2026-01-02T00:00:00Z' },
    ]);
    const sent = await deliver('issue_comment', commentEvent(101, `Please look.\n/cairn run triage ${hostile}`, 'alice', { issue: { comments: 2, title: 'Crash `on` $(start)' } }));
    expect(sent.res.status).toBe(202);
    expect(sent.body).toEqual({ runId: expect.any(String), deliveryId: sent.deliveryId, duplicate: false });
    const runId = sent.body.runId as string;

    expect(gh.sent(/collaborators\/alice\/permission$/)).toHaveLength(1);
    await waitFor(() => gh.sent(new RegExp(`/issues/comments/${commentIds}/reactions$`)).length === 1, { what: 'the eyes reaction' });
    expect(gh.sent(/reactions$/).at(-1)!.body).toEqual({ content: 'eyes' });

    const run = await t.store.getRun(runId);
    expect(run!.inputs).toMatchObject({
      github_number: '101', github_title: 'Crash `on` $(start)', github_body: 'Body of 101', github_author: 'alice', github_args: hostile, github_kind: 'issue', github_head_branch: '',
    });
    expect(run!.inputs.github_comments).toBe('@bob (2026-01-01T00:00:00Z):\nfirst\n\n---\n\n@carol (2026-01-02T00:00:00Z):\nsecond');
    expect(run!.user_message).toBe(hostile);
    expect(run!.metadata.github).toMatchObject({ repository: REPO, number: 101, kind: 'issue', trigger: 'comment', author: 'alice', run_url: `https://cairn.example.com/runs/${runId}` });

    const final = await statusComment(101, '✅ completed');
    expect(final).toContain(`[${runId.slice(0, 8)}](https://cairn.example.com/runs/${runId})`);
    expect(final).toContain('cost: $0');
    expect(final).toContain(`#101 Crash \`on\` $(start) by alice; args=[${hostile}]`);
    // One status comment, created once and edited in place.
    expect(writesTo(101)).toHaveLength(1);
    const statusId = gh.comments.get(101)!.find((c) => c.body.includes('cairn-run'))!.id;
    expect(gh.sent(new RegExp(`^PATCH /repos/${REPO}/issues/comments/${statusId}$`)).length).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(home.home, 'pwned'))).toBe(false);
    expect(existsSync(join(home.home, 'pwned2'))).toBe(false);
    expect(gh.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);

    // The same delivery again: the first run, nothing asked of or written to GitHub.
    const before = gh.requests.length;
    const again = await deliver('issue_comment', {}, sent.deliveryId);
    expect([again.res.status, again.body]).toEqual([200, { runId, deliveryId: sent.deliveryId, duplicate: true }]);
    expect(gh.requests.length).toBe(before);
  });

  it('edits the status comment as the run pauses at a gate and goes on, and posts a failure with its error', async () => {
    const gated = await deliver('issue_comment', commentEvent(102, '/cairn run gated', 'mona'));
    expect(gated.res.status).toBe(202);
    await statusComment(102, '⏸️ paused');
    expect((await fetch(`${url}/api/workflows/runs/${gated.body.runId}/approve`, { method: 'POST' })).status).toBeLessThan(300);
    expect(await statusComment(102, '✅ completed')).toContain('done');
    expect(writesTo(102)).toHaveLength(1);

    const broken = await deliver('issue_comment', commentEvent(103, '/cairn run breaks', 'root'));
    expect(broken.res.status).toBe(202);
    expect(await statusComment(103, '❌ failed')).toContain('Error:');
  });

  it('retries a status comment GitHub fails with 502, and never fails the run for it', async () => {
    gh.failNext(new RegExp(`^POST /repos/${REPO}/issues/104/comments$`), 502, 1);
    const sent = await deliver('issue_comment', commentEvent(104, '/cairn run triage'));
    await statusComment(104, '✅ completed');
    expect(writesTo(104)).toHaveLength(2);
    expect(gh.comments.get(104)).toHaveLength(1);
    expect((await t.store.getRun(sent.body.runId))!.status).toBe('completed');
  });
});

describe('who may start runs', () => {
  it('a reader gets one polite reply and no run; the reason is kept; a redelivery or another comment on the issue replies no more', async () => {
    const sent = await deliver('issue_comment', commentEvent(201, '/cairn run triage please', 'eve'));
    expect(sent.res.status).toBe(200);
    expect(sent.body).toEqual({ runId: null, deliveryId: sent.deliveryId, duplicate: false, ignored: expect.stringContaining('eve has read permission') });
    expect(ignoredReasonOf(sent.deliveryId)).toEqual({ run_id: null, ignored: sent.body.ignored });
    await waitFor(() => writesTo(201).length === 1, { what: 'the reply' });
    expect(writesTo(201)[0]!.body.body).toMatch(/^@eve thank you: only people with write access/);
    const again = await deliver('issue_comment', {}, sent.deliveryId);
    expect(again.body).toEqual({ runId: null, deliveryId: sent.deliveryId, duplicate: true, ignored: sent.body.ignored });
    // A second comment within the minute: the permission is not asked again, and Eve was told already.
    const second = await deliver('issue_comment', commentEvent(201, '/cairn run triage', 'eve'));
    expect(second.body.ignored).toMatch(/eve has read permission/);
    expect(gh.sent(/collaborators\/eve\/permission$/)).toHaveLength(1);
    // On another issue she is told once there too.
    await deliver('issue_comment', commentEvent(205, '/cairn run triage', 'eve'));
    await waitFor(() => writesTo(205).length === 1, { what: 'the reply on the other issue' });
    expect(writesTo(201)).toHaveLength(1);
    expect(gh.sent(/reactions$/).filter((r) => r.path.includes(`/${commentIds}/`))).toHaveLength(0);
  });

  it('never starts a run for its own comments or a bot’s, and writes nothing to GitHub for them', async () => {
    const own = await deliver('issue_comment', commentEvent(202, '/cairn run triage', 'cairn-bot'));
    expect(own.body.ignored).toMatch(/own GitHub user/);
    const bot = await deliver('issue_comment', commentEvent(202, '/cairn run triage', 'dependabot[bot]', { type: 'Bot' }));
    expect(bot.body.ignored).toMatch(/is a bot/);
    expect(gh.sent(/\/issues\/202\//)).toHaveLength(0);
    expect(gh.sent(/reactions$/).filter((r) => r.path.includes(`/${commentIds - 1}/`) || r.path.includes(`/${commentIds}/`))).toHaveLength(0);
    expect(gh.sent(/collaborators\/(cairn-bot|dependabot)/)).toHaveLength(0);
  });

  it('answers 502 and admits nothing when GitHub cannot say the permission; the redelivery then starts the run', async () => {
    gh.failNext(/collaborators\/dana\/permission$/, 503, 1);
    const payload = commentEvent(203, '/cairn run triage', 'dana');
    const down = await deliver('issue_comment', payload, 'perm-down');
    expect(down.res.status).toBe(502);
    expect(down.body.code).toBe('GITHUB_UNAVAILABLE');
    expect(ignoredReasonOf('perm-down')).toBeUndefined();
    const up = await deliver('issue_comment', payload, 'perm-down');
    expect(up.res.status).toBe(202);
  });
});

describe('what else starts a run, and what does not', () => {
  it('a configured label on a pull request starts the hook’s workflow with its head branch; no reaction', async () => {
    const sent = await deliver('pull_request', {
      action: 'labeled', label: { name: 'cairn' }, pull_request: { ...issue(77), head: { ref: 'feature/x' } }, repository: { full_name: REPO }, sender: user('alice'),
    });
    expect(sent.res.status).toBe(202);
    expect((await t.store.getRun(sent.body.runId))!.inputs).toMatchObject({ github_kind: 'pull_request', github_head_branch: 'feature/x', github_number: '77' });
    await statusComment(77, '✅ completed');
    // On an issue comment of a pull request, the head branch is asked of GitHub.
    const onPr = await deliver('issue_comment', commentEvent(77, '/cairn run triage', 'alice', { issue: { pull_request: { url: 'x' } } }));
    expect((await t.store.getRun(onPr.body.runId))!.inputs.github_head_branch).toBe('feature/x');
    expect(gh.sent(/^GET \/repos\/octo\/widgets\/pulls\/77$/)).toHaveLength(1);
  });

  it('acknowledges and ignores, with a reason, what starts nothing: a ping, an edit, an unlisted label or workflow, an opened issue, no command', async () => {
    const asked = gh.sent(/collaborators/).length;
    const cases: [string, unknown, RegExp][] = [
      ['ping', { zen: 'hi' }, /^ping/],
      ['push', { ref: 'main' }, /event 'push' starts nothing/],
      ['issue_comment', { ...commentEvent(301, '/cairn run triage'), action: 'edited' }, /only a new comment/],
      ['issue_comment', commentEvent(301, 'just chatting'), /no \/cairn command/],
      ['issue_comment', commentEvent(301, '/cairn please'), /must read `\/cairn run <workflow> \[args\]`/],
      ['issue_comment', commentEvent(301, '/cairn run ../../etc/passwd'), /workflow "..\/..\/etc\/passwd" is not one this hook starts \(it starts: triage, breaks, gated\)/],
      ['issues', { action: 'labeled', label: { name: 'bug' }, issue: issue(301), repository: { full_name: REPO }, sender: user('alice') }, /label "bug" is not one/],
      ['issues', { action: 'opened', issue: issue(302), repository: { full_name: REPO }, sender: user('alice') }, /on_issue_opened is off/],
    ];
    for (const [event, payload, reason] of cases) {
      const sent = await deliver(event, payload);
      expect(sent.res.status, event).toBe(200);
      expect(sent.body.ignored, event).toMatch(reason);
      expect(ignoredReasonOf(sent.deliveryId)?.ignored).toBe(sent.body.ignored);
    }
    expect(gh.sent(/\/issues\/30[12]\//)).toHaveLength(0);
    expect(gh.sent(/collaborators/)).toHaveLength(asked);
  });

  it('takes a huge comment and body, cut to size, and refuses a payload without a repository as 422 storing nothing', async () => {
    const huge = 'x'.repeat(200_000);
    const sent = await deliver('issue_comment', commentEvent(303, `/cairn run triage ${huge}`, 'alice', { issue: { body: `b${huge}` } }));
    expect(sent.res.status).toBe(202);
    const inputs = (await t.store.getRun(sent.body.runId))!.inputs as Record<string, string>;
    expect(inputs.github_args!.length).toBeLessThan(17_000);
    expect(inputs.github_args).toMatch(/\[… cut: \d+ more characters\]$/);
    expect(inputs.github_body!.length).toBeLessThan(17_000);
    await statusComment(303, '✅ completed');

    const unfit = await deliver('issue_comment', { ...commentEvent(304, '/cairn run triage'), repository: { full_name: '../x' } });
    expect(unfit.res.status).toBe(422);
    expect(unfit.body.code).toBe('HOOK_PAYLOAD_UNFIT');
    expect(ignoredReasonOf(unfit.deliveryId)).toBeUndefined();
  });
});

describe('replacing a token', () => {
  it('a hook whose token GitHub refuses answers 502 and admits nothing; with its token replaced, the redelivery starts the run', async () => {
    const add = await fetch(`${url}/api/hooks`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'gh-expired', workflow: 'triage', signature: 'github', secret: SECRET, github: { token: 'ghs_expired_installation_token', apiUrl: gh.url } }),
    });
    expect(add.status).toBe(201);
    const payload = commentEvent(501, '/cairn run triage', 'alice');
    const refused = await deliver('issue_comment', payload, 'expired-1', 'gh-expired');
    expect(refused.res.status).toBe(502);
    expect(refused.body.error).toMatch(/401 Bad credentials/);
    expect(refused.body.error).not.toContain('ghs_expired_installation_token');
    const put = (name: string, body: unknown) =>
      fetch(`${url}/api/hooks/${name}/github-token`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const replaced = await put('gh-expired', { token: TOKEN });
    expect(replaced.status).toBe(200);
    const shown = await replaced.text();
    expect(JSON.parse(shown)).toMatchObject({ name: 'gh-expired', github: { api_url: gh.url } });
    expect(shown).not.toContain(TOKEN);
    const again = await deliver('issue_comment', payload, 'expired-1', 'gh-expired');
    expect(again.res.status).toBe(202);
    await statusComment(501, '✅ completed');

    expect((await put('no-such-hook', { token: TOKEN })).status).toBe(404);
    expect((await put('gh-expired', { token: 'has a space' })).status).toBe(400);
    expect((await put('gh-expired', { token: TOKEN, more: 1 })).status).toBe(400);
    await fetch(`${url}/api/hooks`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'plain', workflow: 'triage', signature: 'generic', secret: SECRET, inputs: { github_number: '$.n' } }),
    });
    const plain = await put('plain', { token: TOKEN });
    expect([plain.status, (await json(plain)).error]).toEqual([400, "Webhook 'plain' is not a GitHub hook: it has no token to replace (docs/github.md)"]);
  });
});

describe('a restart of the API', () => {
  // Last in the file: it closes the file's first server.
  it('brings a status comment up to date after the API restarts: the new process edits the comment its delivery records, to the end', async () => {
    const sent = await deliver('issue_comment', commentEvent(401, '/cairn run gated', 'alice'));
    expect(sent.res.status).toBe(202);
    await statusComment(401, '⏸️ paused');
    await waitFor(() => (probe.prepare('SELECT status_shown FROM hook_deliveries WHERE delivery_id = ?').get(sent.deliveryId) as { status_shown: string }).status_shown === 'paused');
    await t.app.close();
    const second = await makeTestApp(home, { githubRetry: { tries: 3, firstDelayMs: 10 } });
    const secondUrl = await listen(second.app);
    expect((await fetch(`${secondUrl}/api/workflows/runs/${sent.body.runId}/approve`, { method: 'POST' })).status).toBeLessThan(300);
    expect(await statusComment(401, '✅ completed')).toContain('done');
    expect(writesTo(401)).toHaveLength(1);
    expect(gh.comments.get(401)).toHaveLength(1);
    // The comment's id was on record: the new process never looked for it.
    expect(gh.sent(/^GET \/repos\/octo\/widgets\/issues\/401\/comments$/)).toHaveLength(0);
  });
});
