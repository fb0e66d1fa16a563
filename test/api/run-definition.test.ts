import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from '../store/fixtures.js';

/**
 * What the dashboard reads beyond the contract's routes: the definition stored with a run (its
 * graph), and the dashboard page filtered by workflow; both as docs/http-api.md shows them.
 */

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

const doc = readFileSync(new URL('../../docs/http-api.md', import.meta.url), 'utf8');

it('answers the definition stored with a run, whatever the workflow file says now, and 404 for an unknown run', async () => {
  const definition = {
    name: 'build',
    description: 'fetch, then build',
    nodes: [
      { id: 'fetch', bash: 'git fetch' },
      { id: 'build', depends_on: ['fetch'], bash: 'make' },
    ],
  };
  const run = await t.writer.createRun(newRun({ workflowName: 'build', definition }));
  const res = await t.app.inject({ url: `/api/workflows/runs/${run.id}/definition` });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ definition });
  // The documented example is this answer's shape.
  const at = doc.indexOf('### `GET /api/workflows/runs/{runId}/definition`');
  expect(at).toBeGreaterThan(-1);
  const shown = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(doc.slice(at))![1]!) as { definition: { nodes: unknown[] } };
  expect(Object.keys(shown)).toEqual(['definition']);
  expect(shown.definition.nodes).toEqual(definition.nodes);

  const missing = await t.app.inject({ url: '/api/workflows/runs/no-such-run/definition' });
  expect(missing.statusCode).toBe(404);
  expect(missing.json()).toMatchObject({ error: 'Workflow run not found' });
});

it('filters the dashboard page by workflow, with counts and total under the filter', async () => {
  for (const workflowName of ['build', 'build', 'deploy']) await t.writer.createRun(newRun({ workflowName }));
  const res = await t.app.inject({ url: '/api/dashboard/runs?workflow=build' });
  expect(res.statusCode).toBe(200);
  const page = res.json() as { runs: { workflow_name: string }[]; total: number; counts: Record<string, number> };
  expect(page.runs.map((r) => r.workflow_name)).toEqual(['build', 'build']);
  expect(page.total).toBe(2);
  expect(page.counts).toMatchObject({ all: 2, pending: 2 });
});
