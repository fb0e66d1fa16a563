import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from '../store/fixtures.js';

/** The examples of docs/http-api.md for the run-start, dashboard, artifacts and update-check answers have the real answers' keys. */

const doc = readFileSync(new URL('../../docs/http-api.md', import.meta.url), 'utf8');

/** The first ```json block after `heading`. */
function example(heading: string): Record<string, any> {
  const at = doc.indexOf(heading);
  expect(at, heading).toBeGreaterThan(-1);
  const match = /```json\n([\s\S]*?)\n```/.exec(doc.slice(at));
  return JSON.parse(match![1]!.replace(/"…": "every run field",\s*/, '')) as Record<string, any>;
}

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home, { version: '0.1.0' });
});
afterEach(async () => {
  await home.close();
});

it('shows the update-check answer of a source build exactly', async () => {
  expect((await t.app.inject({ url: '/api/update-check' })).json()).toEqual(example('### `GET /api/update-check`'));
});

it('shows the dashboard answer with the real keys of a run, its facts, and the counts', async () => {
  await t.writer.createRun(newRun());
  const real = (await t.app.inject({ url: '/api/dashboard/runs' })).json();
  const shown = example('### `GET /api/dashboard/runs`');
  expect(Object.keys(shown).sort()).toEqual(Object.keys(real).sort());
  expect(Object.keys(shown.counts).sort()).toEqual(Object.keys(real.counts).sort());
  const facts = Object.keys(shown.runs[0]).filter((k) => !['id', 'workflow_name', 'status'].includes(k));
  expect(Object.keys(real.runs[0])).toEqual(expect.arrayContaining(facts));
});

it('shows the artifacts listing and the run-start answer with the real keys', async () => {
  const listing = example('### `GET /api/runs/{runId}/artifacts`');
  expect(Object.keys(listing.files[0]).sort()).toEqual(['modifiedAt', 'path', 'size']);
  await import('../helpers/workflows.js').then(({ writeHomeWorkflow }) =>
    writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n'),
  );
  const started = (await t.app.inject({ method: 'POST', url: '/api/workflows/plain/run', payload: {} })).json();
  expect(Object.keys(example('Answer (every field always present):')).sort()).toEqual(Object.keys(started).sort());
});

it('shows the dry-run answer of the documented request as the server gives it', async () => {
  const { writeHomeWorkflow } = await import('../helpers/workflows.js');
  await writeHomeWorkflow(home, 'triage', [
    'name: triage', 'description: t', 'provider: anthropic', 'model: claude-test',
    'inputs:', '  target: { required: true }', '  mode: { default: safe }',
    'nodes:',
    '  - id: fetch', '    bash: "touch $ARTIFACTS_DIR/fetched; echo $INPUTS.target"',
    '  - id: classify', '    depends_on: [fetch]', '    prompt: "Classify $fetch.output for $INPUTS.target"',
    '  - id: deploy', '    depends_on: [classify]', '    when: "$INPUTS.mode == \'prod\'"', '    bash: echo deploying',
  ].join('\n'));
  const curl = /-d '(\{.*?\})' \\\n\s+http:\/\/127\.0\.0\.1:3090(\/api\/workflows\/triage\/dry-run)/.exec(doc);
  expect(curl, 'the documented curl request').not.toBeNull();
  const real = (await t.app.inject({ method: 'POST', url: curl![2]!, payload: JSON.parse(curl![1]!) as object })).json();
  const shown = example('### `POST /api/workflows/{name}/dry-run`');
  expect({ ...real, notes: real.notes.slice(0, shown.notes.length) }).toEqual(shown);
});

it('shows the config answer of a fresh install exactly, and a catalog entry the bundled catalog holds', async () => {
  expect((await t.app.inject({ url: '/api/config' })).json()).toEqual(example('### `GET /api/config`'));
  const shown = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(doc.slice(doc.indexOf('### `GET /api/providers/{vendor}/models`')))![1]!) as unknown[];
  expect((await t.app.inject({ url: '/api/providers/anthropic/models' })).json()).toEqual(expect.arrayContaining(shown));
});

it('shows the prefs a user gets from the documented writes', async () => {
  const headers = { 'x-service-user': 'docs-user' };
  await t.app.inject({ method: 'PATCH', url: '/api/auth/me/ai-prefs/tiers', headers, payload: { tiers: { large: { provider: 'codex', model: 'gpt-5.5', effort: 'high' } } } });
  const res = await t.app.inject({ method: 'PATCH', url: '/api/auth/me/ai-prefs/default', headers, payload: { provider: 'codex', model: 'gpt-5' } });
  expect(res.json()).toEqual(example('### `PATCH /api/auth/me/ai-prefs/tiers`, `…/aliases`, `…/default`'));
});

it('shows the fan-out grid answer with the real keys of the answer and of an item, and the retry answer', async () => {
  const run = await t.writer.createRun(newRun({
    definition: { name: 'demo', description: 'd', nodes: [{ id: 'each', workflow: 'child', fan_out: { items: '["a"]' } }] },
  }));
  await t.writer.appendEvents([{
    run_id: run.id, conversation_id: run.conversation_id, event_type: 'fan_out_instances', step_name: 'each',
    data: { instances: [{ ordinal: 0, identity: 'ca978112ca1bbdca', item: 'a', inputs: {} }] },
  }]);
  const real = (await t.app.inject({ url: `/api/workflows/runs/${run.id}/fan-out/each` })).json();
  const shown = example('### `GET /api/workflows/runs/{runId}/fan-out/{nodeId}`');
  expect(Object.keys(shown).sort()).toEqual(Object.keys(real).sort());
  expect(Object.keys(shown.counts).sort()).toEqual(Object.keys(real.counts).sort());
  expect(Object.keys(shown.items[0]).sort()).toEqual(Object.keys(real.items[0]).sort());
  expect(real.items[0]).toMatchObject({ index: 0, identity: 'ca978112ca1bbdca', item: 'a', status: 'pending', attempts: 0 });
  const retry = example('### `POST /api/workflows/runs/{runId}/fan-out/{nodeId}/retry`');
  expect(Object.keys(retry).sort()).toEqual(['message', 'retried', 'success']);
});

it('quotes as much of a too-long path as the error texts section says', async () => {
  const said = /the request's path \(in [^)]*URL_TOO_LONG[^)]*\) and a content type are cut to their first (\d+)/.exec(doc);
  expect(said).not.toBeNull();
  const path = `/api/workflows/runs/${'a'.repeat(5000)}`;
  const res = await t.app.inject({ url: path });
  expect(res.statusCode).toBe(414);
  expect(res.json().error).toBe(
    `A path segment of GET ${path.slice(0, Number(said![1]))}… (${path.length} characters) is longer than 1024 characters, longer than any id or name Cairn accepts; check the URL`,
  );
});

it('shows a workflow file’s answer as the route gives it: the file’s own text, comment first', async () => {
  const { writeHomeWorkflow } = await import('../helpers/workflows.js');
  await writeHomeWorkflow(home, 'build', '# Builds and tests.\nname: build\ndescription: b\nnodes:\n  - id: a\n    bash: echo built\n');
  const real = (await t.app.inject({ url: '/api/workflows/build/file' })).json();
  const { text, ...shown } = example('### `GET /api/workflows/{name}/file`');
  const { text: realText, ...rest } = real;
  expect(rest).toEqual(shown);
  expect(realText.startsWith((text as string).replace(/…$/, ''))).toBe(true);
});

it('shows the schedule a documented POST /api/schedules makes, with the real keys and values', async () => {
  await import('../helpers/workflows.js').then(({ writeHomeWorkflow }) =>
    writeHomeWorkflow(home, 'nightly-review', 'name: nightly-review\ndescription: n\ninputs:\n  days: { default: "1" }\nnodes:\n  - id: a\n    bash: "true"\n'),
  );
  const res = await t.app.inject({ method: 'POST', url: '/api/schedules', payload: example('### `POST /api/schedules`') });
  expect(res.statusCode).toBe(201);
  const shown = example('paused: true` makes it paused. The answer');
  const real = res.json();
  expect(Object.keys(real).sort()).toEqual(Object.keys(shown).sort());
  const fixed = ['name', 'workflow_name', 'codebase_id', 'inputs', 'cron', 'timezone', 'overlap', 'catch_up_ms', 'paused', 'origin'];
  for (const key of fixed) expect(real[key], key).toEqual(shown[key]);
});
