import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowCatalog } from '../../src/workflow/catalog/catalog.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { fanOutYaml, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Starting a run of a 10,000-node workflow, with the catalog on its worker thread as in
 * `cairn serve` (the thread runs the built entry; `npm test` builds first).
 */
const threadFile = fileURLToPath(new URL('../../dist/workflow/catalog/catalog-thread.js', import.meta.url));
const N = 10_000;

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home, { catalog: WorkflowCatalog.forHome(home.home, { threadFile }) });
  const join = `  - id: join\n    depends_on: [${Array.from({ length: N }, (_, i) => `n${i}`).join(', ')}]\n    bash: "true"\n`;
  await writeHomeWorkflow(home, 'fan-in', fanOutYaml('fan-in', N, 'true') + join);
});
afterEach(async () => {
  await home.close();
});

describe('POST /api/workflows/{name}/run for a 10,000-node workflow', () => {
  it('stores the whole definition the run will execute', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/workflows/fan-in/run', payload: {} });
    expect(res.statusCode).toBe(200);
    const definition = (await t.store.getRunDefinition(res.json<{ runId: string }>().runId)) as {
      nodes: { id: string; depends_on?: string[] }[];
    };
    expect(definition.nodes).toHaveLength(N + 1);
    expect(definition.nodes.at(-1)).toMatchObject({ id: 'join', depends_on: expect.arrayContaining(['n0', `n${N - 1}`]) });
    expect(definition.nodes.at(-1)!.depends_on).toHaveLength(N);
  });

  it('answers a second start from the parsed file, and refuses an unknown name as before', async () => {
    const first = await t.app.inject({ method: 'POST', url: '/api/workflows/fan-in/run', payload: {} });
    const second = await t.app.inject({ method: 'POST', url: '/api/workflows/fan-in/run', payload: {} });
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(second.json<{ runId: string }>().runId).not.toBe(first.json<{ runId: string }>().runId);

    const missing = await t.app.inject({ method: 'POST', url: '/api/workflows/fan-out/run', payload: {} });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'Workflow not found: fan-out' });
  });
});
