import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * Webhooks over real HTTP on a free port, with HMACs computed here as a sender computes them, on
 * the home's real SQLite database: one API server for the file (one home, each test its own hook
 * and delivery ids), and a second one over the same database for the restart.
 */

let home: TempHome;
let t: TestApp;
let url: string;
let probe: Database.Database;
beforeAll(async () => {
  home = await makeTempHome();
  await writeHomeWorkflow(
    home,
    'ci-report',
    'name: ci-report\ndescription: r\ninputs:\n  sha: { required: true }\n  branch: { default: main }\n  status: { default: unknown }\nnodes:\n  - id: a\n    bash: "true"\n',
  );
  t = await makeTestApp(home);
  url = await listen(t.app);
  probe = new Database(home.paths.database, { readonly: true });
  home.defer(() => probe.close());
});
afterAll(() => home.close());

const SECRET = 'a-secret-of-32-characters-000000';
const sha256 = (secret: string, ...parts: string[]) => {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return `sha256=${mac.digest('hex')}`;
};

async function addHook(name: string, signature: 'github' | 'generic', extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${url}/api/hooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, workflow: 'ci-report', signature, secret: SECRET, inputs: { sha: '$.head_commit.id', status: '$.check.conclusion' }, ...extra }),
  });
}

/** A delivery signed as GitHub signs one. */
const github = (hook: string, body: string, delivery: string, secret = SECRET, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': sha256(secret, body), 'x-github-delivery': delivery, ...headers },
    body,
  });

/** A delivery signed in the generic form, sent `ageS` seconds after it was signed. */
const generic = (hook: string, body: string, delivery: string, ageS = 0) => {
  const stamp = String(Math.floor(Date.now() / 1000) - ageS);
  return fetch(`${url}/api/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cairn-timestamp': stamp, 'x-cairn-signature': sha256(SECRET, `${stamp}.`, body), 'x-cairn-delivery': delivery },
    body,
  });
};

const push = (sha: string, extra: Record<string, unknown> = {}) => JSON.stringify({ head_commit: { id: sha }, check: { conclusion: 'success' }, ...extra });
const runsOf = async (hookName: string) =>
  (await t.store.listRuns({ workflowName: 'ci-report', limit: 1_000 })).filter((r) => (r.metadata.hook as { name?: string } | undefined)?.name === hookName);
/** A JSON answer, read as the test reads it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (res: Response): Promise<any> => res.json();
const dataVersion = () => probe.pragma('data_version', { simple: true });

describe('configuring webhooks', () => {
  it('creates a hook, lists and shows it without its secret, which is stored sealed, and deletes it', async () => {
    const res = await addHook('listed', 'github');
    expect(res.status).toBe(201);
    const made = await json(res);
    expect(made).toEqual({
      id: expect.any(String), name: 'listed', workflow_name: 'ci-report', codebase_id: null, signature: 'github',
      inputs: { sha: '$.head_commit.id', status: '$.check.conclusion' }, github: null, created_at: expect.any(String),
    });
    const list = await (await fetch(`${url}/api/hooks`)).text();
    expect(JSON.parse(list).hooks.map((h: { name: string }) => h.name)).toContain('listed');
    expect(list).not.toContain(SECRET);
    expect(await json(await fetch(`${url}/api/hooks/listed`))).toEqual(made);
    const row = probe.prepare('SELECT sealed_secret FROM hooks WHERE name = ?').get('listed') as { sealed_secret: string };
    expect(row.sealed_secret).not.toContain(SECRET);
    expect((await addHook('listed', 'generic')).status).toBe(409);
    expect(await json(await fetch(`${url}/api/hooks/listed`, { method: 'DELETE' }))).toEqual({ deleted: true, name: 'listed' });
    expect((await fetch(`${url}/api/hooks/listed`)).status).toBe(404);
  });

  it('refuses a short secret, a bad path, an undeclared input, an unmapped required input, a missing workflow or signature form, naming it', async () => {
    const refusals: [Record<string, unknown>, number, RegExp][] = [
      [{ secret: 'short' }, 400, /secret: at least 16 characters/],
      [{ inputs: { sha: 'head_commit.id' } }, 400, /input 'sha': path 'head_commit.id' must start with '\$'/],
      [{ inputs: { sha: '$.commits[*].id' } }, 400, /path '\$.commits\[\*\].id' is not supported at '\[\*\].id'/],
      [{ inputs: { sha: '$.a', shaa: '$.b' } }, 400, /'shaa' is not an input of workflow 'ci-report'; declared inputs: sha, branch, status/],
      [{ inputs: { status: '$.check.conclusion' } }, 400, /requires input 'sha' \(no default\): map it/],
      [{ workflow: 'nope' }, 404, /nope/],
      [{ signature: 'gitlab' }, 400, /signature/],
    ];
    const before = dataVersion();
    for (const [extra, status, text] of refusals) {
      const res = await addHook('refused', 'github', extra);
      expect(res.status, JSON.stringify(extra)).toBe(status);
      expect((await json(res)).error).toMatch(text);
    }
    expect(dataVersion()).toBe(before);
  });

  it('makes the hook docs/http-api.md shows from its documented request, with the real keys and values', async () => {
    const doc = readFileSync(new URL('../../../docs/http-api.md', import.meta.url), 'utf8');
    const example = (heading: string) => JSON.parse(/```json\n([\s\S]*?)\n```/.exec(doc.slice(doc.indexOf(heading)))![1]!);
    const res = await fetch(`${url}/api/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(example('### `POST /api/hooks`')) });
    expect(res.status).toBe(201);
    const real = await json(res);
    const shown = example('required; `codebaseId` runs it on a registered codebase. The answer');
    expect(Object.keys(real)).toEqual(Object.keys(shown));
    for (const key of ['name', 'workflow_name', 'codebase_id', 'signature', 'inputs']) expect(real[key], key).toEqual(shown[key]);
    await fetch(`${url}/api/hooks/ci-build`, { method: 'DELETE' });
  });
});

describe('deliveries', () => {
  beforeAll(async () => {
    expect((await addHook('gh', 'github')).status).toBe(201);
    expect((await addHook('ci', 'generic')).status).toBe(201);
  });

  it('a signed GitHub delivery queues an ordinary run whose origin is the hook and delivery; sent again it answers the first run and starts none', async () => {
    const body = push('abc123');
    const first = await github('gh', body, 'd-1');
    expect(first.status).toBe(202);
    const { runId } = await json(first);
    const again = await github('gh', body, 'd-1');
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual({ runId, deliveryId: 'd-1', duplicate: true });
    const listed = (await json(await fetch(`${url}/api/workflows/runs?workflow=ci-report`))).runs.find((r: { id: string }) => r.id === runId);
    expect(listed).toMatchObject({ id: runId, inputs: { sha: 'abc123', status: 'success' }, metadata: { hook: { name: 'gh', delivery_id: 'd-1' } } });
    expect((await runsOf('gh')).map((r) => r.id)).toEqual([runId]);
  });

  it('refuses a missing, wrong or differently signed signature with 401 before anything is stored, an unknown hook with 404', async () => {
    const body = push('bad');
    const before = dataVersion();
    const refused = [
      await fetch(`${url}/api/hooks/gh`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-delivery': 'x-1' }, body }),
      await github('gh', body, 'x-2', 'another-secret-of-32-characters!'),
      await github('gh', body, 'x-3', SECRET, { 'x-hub-signature-256': 'sha256=00' }),
      // Signed, then changed on the way.
      await fetch(`${url}/api/hooks/gh`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sha256(SECRET, body), 'x-github-delivery': 'x-4' }, body: push('evil'),
      }),
      // A form a browser posts from the server's own page, unsigned.
      await fetch(`${url}/api/hooks/gh`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url, 'sec-fetch-site': 'same-origin' }, body: 'payload=%7B%7D',
      }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(401);
      expect(await json(res)).toMatchObject({ code: 'HOOK_SIGNATURE_INVALID', error: expect.stringMatching(/^The delivery's signature was refused: .+\. Nothing was started\.$/) });
    }
    const unknown = await github('nope', body, 'x-5');
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error).toMatch(/No webhook is named 'nope'/);
    expect(dataVersion()).toBe(before);
  });

  it('the generic form: a fresh signed delivery starts a run, one signed more than 5 minutes ago is refused', async () => {
    const fresh = await generic('ci', push('fff'), 'g-1');
    expect(fresh.status).toBe(202);
    const old = await generic('ci', push('old'), 'g-2', 301);
    expect(old.status).toBe(401);
    expect((await json(old)).error).toMatch(/X-Cairn-Timestamp is 30\d s old; at most 300 s is accepted/);
    expect((await runsOf('ci')).map((r) => r.inputs.sha)).toEqual(['fff']);
  });

  it('a payload that does not fit the inputs is a 4xx naming the input and admits nothing; the delivery can then be sent again fixed', async () => {
    const before = dataVersion();
    const missing = await github('gh', JSON.stringify({ check: { conclusion: 'success' } }), 'p-1');
    expect(missing.status).toBe(422);
    expect((await json(missing)).error).toBe("Input 'sha' maps to $.head_commit.id, which the payload does not hold (or holds null), and workflow 'ci-report' requires it");
    const object = await github('gh', JSON.stringify({ head_commit: { id: { full: 'x' } } }), 'p-1');
    expect(object.status).toBe(422);
    expect((await json(object)).error).toMatch(/^Input 'sha' maps to \$.head_commit.id, which is an object in the payload/);
    const notJson = await github('gh', 'payload=%7B%7D', 'p-1', SECRET, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(notJson.status).toBe(400);
    expect((await json(notJson)).error).toMatch(/the body is not JSON/);
    expect(dataVersion()).toBe(before);
    // A number maps to its text; optional inputs the payload does not hold, or the mapping does not name, take their defaults.
    const fixed = await github('gh', JSON.stringify({ head_commit: { id: 42 } }), 'p-1');
    expect(fixed.status).toBe(202);
    const run = await t.store.getRun((await json(fixed)).runId);
    expect(run?.inputs).toEqual({ sha: '42', branch: 'main', status: 'unknown' });
  });

  it('lists a hook’s deliveries newest first, each with its run, a page at a time; an unknown hook is 404', async () => {
    expect((await addHook('listing', 'github')).status).toBe(201);
    const empty = await fetch(`${url}/api/hooks/listing/deliveries`);
    expect(empty.status).toBe(200);
    expect(await json(empty)).toEqual({ deliveries: [], total: 0 });
    const runIds: string[] = [];
    for (const delivery of ['l-1', 'l-2', 'l-3']) runIds.push((await json(await github('listing', push(delivery), delivery))).runId);
    const all = await json(await fetch(`${url}/api/hooks/listing/deliveries`));
    expect(all.total).toBe(3);
    // Received in this order, perhaps within one millisecond: newest first, then by delivery id.
    expect(all.deliveries.map((d: { delivery_id: string; run_id: string }) => [d.delivery_id, d.run_id])).toEqual([
      ['l-3', runIds[2]], ['l-2', runIds[1]], ['l-1', runIds[0]],
    ]);
    expect(Date.parse(all.deliveries[0].received_at)).not.toBeNaN();
    const page = await json(await fetch(`${url}/api/hooks/listing/deliveries?limit=1&offset=1`));
    expect(page).toEqual({ deliveries: [all.deliveries[1]], total: 3 });
    const bad = await fetch(`${url}/api/hooks/listing/deliveries?limit=0`);
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toContain('limit must be an integer from 1 to 100');
    const unknown = await fetch(`${url}/api/hooks/nobody/deliveries`);
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).code).toBe('HOOK_NOT_FOUND');
    // With the list, in one answer (what the dashboard reads): each hook's latest N and their total.
    const listed = await json(await fetch(`${url}/api/hooks?deliveries=2`));
    expect(listed.hooks.find((h: { name: string }) => h.name === 'listing').deliveries).toEqual({ deliveries: all.deliveries.slice(0, 2), total: 3 });
    expect((await json(await fetch(`${url}/api/hooks`))).hooks.every((h: object) => !('deliveries' in h))).toBe(true);
    expect((await fetch(`${url}/api/hooks?deliveries=101`)).status).toBe(400);
  });

  it('the same delivery sent ten times at once starts one run; all answers name it', async () => {
    const body = push('race');
    const answers = await Promise.all(Array.from({ length: 10 }, () => github('gh', body, 'r-1')));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 202]);
    const ids = new Set(await Promise.all(answers.map(async (r) => (await json(r)).runId)));
    expect(ids.size).toBe(1);
    expect((await runsOf('gh')).filter((r) => r.inputs.sha === 'race').map((r) => r.id)).toEqual([...ids]);
  });

  it('after a restart of the API over the same database, a redelivery answers the first run and starts none', async () => {
    const body = push('restart');
    const first = await github('gh', body, 'rs-1');
    expect(first.status).toBe(202);
    const { runId } = await json(first);
    await t.app.close();
    await t.store.close();
    t = await makeTestApp(home);
    url = await listen(t.app);
    const again = await github('gh', body, 'rs-1');
    expect(again.status).toBe(200);
    expect((await json(again)).runId).toBe(runId);
    expect((await runsOf('gh')).filter((r) => r.inputs.sha === 'restart')).toHaveLength(1);
  });
});
