import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../helpers/app.js';
import { startGitHubApi, type GitHubApi } from '../helpers/github-api.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A run's declared, capped writes back to GitHub (`github:` nodes) and `@cairn` mentions, end to
 * end in one process: real HMAC-signed deliveries to the real API route, the in-process
 * supervisor making the writes, the home's SQLite database counting them, and the local GitHub
 * REST stand-in recording every request. One server, stand-in and hook for the file; each test its
 * own issue numbers.
 */

const SECRET = 'github-writes-secret-0123456789abcdef';
const TOKEN = 'github_pat_writes_0123456789TOKEN';
const REPO = 'octo/widgets';

/** docs/github.md's worked example of writes: its fenced blocks (its workflow is written as the home's in beforeAll). */
const doc = readFileSync(fileURLToPath(new URL('../../docs/github.md', import.meta.url)), 'utf8');
const example = doc.split('\n### A worked example: an issue comment that opens a pull request\n')[1]!.split('\n## ')[0]!;
const block = (fence: string, lang: string) => [...example.matchAll(new RegExp(`^${fence}${lang}\\n([\\s\\S]*?)^${fence}$`, 'gm'))].map((m) => m[1]!);

let home: TempHome;
let t: TestApp;
let url: string;
let gh: GitHubApi;

const HOSTILE = '$(touch PWNED) `touch PWNED2` "; exit 1; \' ../../x?y#z @cairn run writes';

beforeAll(async () => {
  home = await makeTempHome();
  const inputs = 'inputs:\n  github_number: { default: "" }\n  github_title: { default: "" }\n  github_args: { default: "" }\n';
  await writeHomeWorkflow(
    home,
    'writes',
    `name: writes
description: comments twice, labels and opens a pull request
${inputs}github:
  writes: { comment: 2, label: 1, pull_request: 1 }
nodes:
  - id: make
    bash: 'printf "%s" "$INPUTS.github_args"'
  - id: hello
    github: { comment: "Looking at #$INPUTS.github_number: $INPUTS.github_title" }
  - id: report
    depends_on: [make, hello]
    github: { comment: "The agent says: $make.output" }
  - id: tag
    depends_on: [report]
    github: { label: [cairn-done, "$INPUTS.github_title"] }
  - id: pr
    depends_on: [tag]
    github:
      pull_request: { title: "Fix #$INPUTS.github_number", body: "$make.output", head: "cairn/fix-$INPUTS.github_number" }
`,
  );
  await writeHomeWorkflow(
    home,
    'over',
    `name: over
description: asks for a second comment where one is allowed
${inputs}github:
  writes: { comment: 1 }
nodes:
  - id: first
    github: { comment: first }
  - id: second
    depends_on: [first]
    when: "$INPUTS.github_number != ''"
    github: { comment: "second $INPUTS.github_args" }
`,
  );
  await writeHomeWorkflow(
    home,
    'once',
    `name: once
description: one comment, tried again when GitHub's answer is lost
github:
  writes: { comment: 1 }
nodes:
  - id: note
    retry: { max_attempts: 2, delay_ms: 1000 }
    github: { comment: "written once" }
`,
  );
  await writeHomeWorkflow(
    home,
    'gated-note',
    `name: gated-note
description: a comment after an approval
github:
  writes: { comment: 1 }
nodes:
  - id: go
    approval: { message: "write?" }
  - id: note
    depends_on: [go]
    github: { comment: "after the gate" }
`,
  );
  await writeHomeWorkflow(home, 'triage', 'name: triage\ndescription: looks\ninputs:\n  github_args: { default: "" }\nnodes:\n  - id: look\n    bash: \'printf "args=[%s]" "$INPUTS.github_args"\'\n');
  await writeHomeWorkflow(home, 'propose-fix', block('```', 'yaml')[0]!);
  gh = await startGitHubApi({ token: TOKEN, login: 'cairn-bot', permissions: { alice: 'write' } });
  home.defer(() => gh.close());
  await startSupervisor(home);
  t = await makeTestApp(home, { githubRetry: { tries: 3, firstDelayMs: 10 } });
  url = await listen(t.app);
  const res = await fetch(`${url}/api/hooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'gh', workflow: 'triage', signature: 'github', secret: SECRET, github: { token: TOKEN, apiUrl: gh.url, workflows: ['writes', 'over', 'once', 'propose-fix', 'gated-note'] } }),
  });
  expect(res.status).toBe(201);
}, 60_000);
afterAll(() => home.close());

let deliveries = 0;
let commentIds = 700;
async function comment(number: number, body: string, login = 'alice', title = `Issue ${number}`): Promise<{ status: number; body: any }> {
  const raw = JSON.stringify({
    action: 'created',
    issue: { number, title, body: '', html_url: `https://github.com/${REPO}/issues/${number}`, comments: 0 },
    comment: { id: ++commentIds, body, user: { login, type: 'User' } },
    repository: { full_name: REPO },
    sender: { login, type: 'User' },
  });
  const res = await fetch(`${url}/api/hooks/gh`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': `w-${++deliveries}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`,
    },
    body: raw,
  });
  return { status: res.status, body: await res.json() };
}

const ended = (runId: string) => waitFor(async () => {
  const run = await t.store.getRun(runId);
  return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
}, { what: `run ${runId} to end` });
/** The comments a run's github nodes wrote on an issue (the status comment is not one). */
const written = (number: number) => (gh.comments.get(number) ?? []).filter((c) => c.body.startsWith('<!-- cairn-write:'));

describe('github: nodes', () => {
  it('comment twice, add labels and open a pull request within the caps, with hostile text only ever in a JSON body', async () => {
    const sent = await comment(201, `/cairn run writes ${HOSTILE}`, 'alice', `Crash ${HOSTILE}`);
    expect(sent.status).toBe(202);
    const run = await ended(sent.body.runId);
    expect(run.status).toBe('completed');

    const runId = run.id;
    expect(written(201).map((c) => c.body)).toEqual([
      `<!-- cairn-write:${runId}:comment:hello -->\nLooking at #201: Crash ${HOSTILE}`,
      `<!-- cairn-write:${runId}:comment:report -->\nThe agent says: ${HOSTILE}`,
    ]);
    expect(gh.labels.get(201)).toEqual(['cairn-done', `Crash ${HOSTILE}`]);
    expect(gh.pulls).toEqual([{ number: 100, title: 'Fix #201', body: `<!-- cairn-write:${runId}:pull_request:pr -->\n${HOSTILE}`, head: 'cairn/fix-201', base: 'main', draft: false }]);
    // Every request went to a path made of the repository and GitHub's numbers, with the hook's token.
    const paths = gh.requests.map((r) => `${r.method} ${r.path}${r.query.size ? `?${r.query}` : ''}`);
    for (const path of paths) expect(path).toMatch(/^(GET|POST|PATCH) \/(user|repos\/octo\/widgets(\/([a-z_]+|\d+))*)(\?[a-z_=&0-9]+)?$/);
    expect(gh.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);

    // Counted durably, and each node's output names what it wrote.
    expect((await t.store.listGitHubWrites(runId)).map((w) => [w.key, w.githubId])).toEqual([
      ['comment:hello', String(written(201)[0]!.id)], ['comment:report', String(written(201)[1]!.id)],
      ['label:tag', `cairn-done,Crash ${HOSTILE}`], ['pull_request:pr', '100'],
    ]);
    const outputs = (await t.store.listRunEvents(runId)).filter((e) => e.event_type === 'node_completed' && e.step_name === 'pr');
    expect(JSON.stringify(outputs)).toContain('https://github.com/octo/widgets/pull/100');
  });

  it('fails the node that would write past a cap, naming the cap, and writes nothing past it', async () => {
    const sent = await comment(202, '/cairn run over please');
    const run = await ended(sent.body.runId);
    expect(run.status).toBe('failed');
    expect(written(202).map((c) => c.body.split('\n')[1])).toEqual(['first']);
    const failed = (await t.store.listRunEvents(run.id)).find((e) => e.event_type === 'node_failed' && e.step_name === 'second');
    expect(JSON.stringify(failed)).toContain("this run has made 1 GitHub comment write, the most the workflow allows ('github.writes.comment: 1'): nothing was written");
    expect(JSON.stringify(failed)).toContain('"retryable":false');
    expect((await t.store.listGitHubWrites(run.id)).map((w) => w.key)).toEqual(['comment:first']);
  });

  it('writes once when GitHub made the comment but its answer was lost and the node is tried again', async () => {
    gh.loseAnswerNext(/^POST \/repos\/octo\/widgets\/issues\/203\/comments$/, { body: /^<!-- cairn-write:/ });
    const sent = await comment(203, '/cairn run once');
    const run = await ended(sent.body.runId);
    expect(run.status).toBe('completed');
    expect(written(203).map((c) => c.body)).toEqual([`<!-- cairn-write:${run.id}:comment:note -->\nwritten once`]);
    // The retry found its comment by its marker and edited it in place: one POST, one PATCH.
    expect(gh.sent(/^POST \/repos\/octo\/widgets\/issues\/203\/comments$/).filter((r) => String(r.body.body).startsWith('<!-- cairn-write:'))).toHaveLength(1);
    expect(gh.sent(new RegExp(`^PATCH /repos/octo/widgets/issues/comments/${written(203)[0]!.id}$`)).length).toBeGreaterThanOrEqual(1);
    const attempts = (await t.store.listRunEvents(run.id)).filter((e) => e.step_name === 'note' && ['node_failed', 'node_completed'].includes(e.event_type));
    expect(attempts.map((e) => e.event_type)).toEqual(['node_failed', 'node_completed']);
  });

  it('after a crash between GitHub making a comment and its record, the node run again edits that comment and posts none', async () => {
    const sent = await comment(204, '/cairn run gated-note');
    const runId = sent.body.runId as string;
    await waitFor(async () => (await t.store.getRun(runId))?.status === 'paused', { what: 'the run at its gate' });
    // What a supervisor that died mid-write leaves: the write reserved, unrecorded, and made on GitHub.
    expect(await t.store.reserveGitHubWrite({ runId, key: 'comment:note', kind: 'comment', cap: 1 })).toMatchObject({ reserved: true, existing: false });
    gh.comments.set(204, [...(gh.comments.get(204) ?? []), { id: 555, user: { login: 'cairn-bot', type: 'User' }, body: `<!-- cairn-write:${runId}:comment:note -->\nafter the`, created_at: '2026-01-01T00:00:00Z' }]);
    expect((await fetch(`${url}/api/workflows/runs/${runId}/approve`, { method: 'POST' })).status).toBeLessThan(300);
    expect((await ended(runId)).status).toBe('completed');
    expect(written(204).map((c) => [c.id, c.body])).toEqual([[555, `<!-- cairn-write:${runId}:comment:note -->\nafter the gate`]]);
    expect(gh.sent(/^POST \/repos\/octo\/widgets\/issues\/204\/comments$/).filter((r) => String(r.body.body).startsWith('<!-- cairn-write:'))).toEqual([]);
    expect((await t.store.listGitHubWrites(runId)).map((w) => [w.key, w.githubId])).toEqual([['comment:note', '555']]);
  });

  it('fails clearly in a run no GitHub hook started, writing nothing', async () => {
    const before = gh.requests.length;
    const { runId } = await startRun(url, 'once');
    const run = await ended(runId);
    expect(run.status).toBe('failed');
    expect(JSON.stringify(await t.store.listRunEvents(runId))).toContain('was not started by one: start this workflow from GitHub');
    expect(gh.requests.slice(before).filter((r) => JSON.stringify(r.body ?? '').includes('written once'))).toEqual([]);
    expect(await t.store.listGitHubWrites(runId)).toEqual([]);
  });
});

describe("docs/github.md's worked example", () => {
  it('runs as written: a mention opens the pull request, with the comments and the label it shows', async () => {
    const said = /mentions the bot:\n\n```\n(.*)\n```/.exec(example)![1]!;
    const sent = await comment(42, said, 'alice', 'Crash on start');
    expect(sent.status).toBe(202);
    const run = await ended(sent.body.runId);
    expect(run.status).toBe('completed');
    const withId = (text: string) => text.replaceAll('<run id>', run.id);
    const number = gh.pulls.at(-1)!.number;
    expect(written(42).map((c) => `${c.body}\n`)).toEqual(block('~~~', 'markdown').map((b) => withId(b).replace('<number>', String(number))));
    expect(gh.labels.get(42)).toEqual(['cairn']);
    const [pull] = block('```', 'json');
    expect(gh.sent(/^POST \/repos\/octo\/widgets\/pulls$/).map((r) => r.body).at(-1)).toEqual(JSON.parse(withId(pull!)));
  });
});

describe('@cairn mentions', () => {
  it('start a run as /cairn run does, by @cairn or the token user\'s login, and the bot\'s own comments never do', async () => {
    const byName = await comment(210, 'Hey @cairn run triage the stack trace, please');
    expect(byName.status).toBe(202);
    const first = await ended(byName.body.runId);
    expect([first.workflow_name, first.inputs.github_args]).toEqual(['triage', 'the stack trace, please']);

    const byLogin = await comment(211, '@Cairn-Bot run triage');
    expect(byLogin.status).toBe(202);
    expect((await ended(byLogin.body.runId)).workflow_name).toBe('triage');

    // Not a command: another user mentioned, a mention inside an address, a mention without `run`.
    for (const body of ['@alice run triage', 'mail me@cairn run triage', '@cairn please look']) {
      const sent = await comment(212, body);
      expect([sent.status, sent.body.runId], body).toEqual([200, null]);
    }
    // The hook's own user (what a github: node writes) never starts a run, whatever it says.
    const own = await comment(213, '@cairn run triage', 'cairn-bot');
    expect([own.status, own.body.runId]).toEqual([200, null]);
    expect(own.body.ignored).toMatch(/own GitHub user/);
  });
});
