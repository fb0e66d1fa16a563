import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CairnError } from '../../src/shared/errors.js';
import { WorkflowCatalog } from '../../src/workflow/catalog/catalog.js';
import { makeTempProject, workflowYaml, type TempProject } from './temp-project.js';

/**
 * The catalog's `…Async` methods on its worker thread. The thread runs plain JavaScript, so
 * these tests use the built entry (`npm test` builds first), beside an in-process catalog of the
 * same folders that gives the expected answers.
 */
const threadFile = fileURLToPath(new URL('../../dist/workflow/catalog/catalog-thread.js', import.meta.url));

let t: TempProject;
let threaded: WorkflowCatalog;
beforeEach(() => {
  if (!existsSync(threadFile)) throw new Error('dist/workflow/catalog/catalog-thread.js is missing: run `npm run build`');
  t = makeTempProject();
  threaded = new WorkflowCatalog(t.catalog.locations, { threadFile });
});
afterEach(async () => {
  await threaded.close();
  t.close();
});

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => (err instanceof CairnError ? { code: err.code, message: err.message, details: err.details } : err),
  );

describe('the catalog on its worker thread', () => {
  it('lists, finds and validates as the in-process catalog does, errors included', async () => {
    t.write('project:.cairn/workflows/good.yaml', workflowYaml('good'));
    t.write('project:.cairn/workflows/outer.yaml', workflowYaml('outer', '', 'include: good'));
    t.write('home:workflows/broken.yaml', workflowYaml('broken', '', 'prompt: $nowhere.output'));
    t.write('home:workflows/garbled.yaml', 'name: [unclosed');
    const query = { cwd: t.cwd };

    expect(await threaded.listAsync(query)).toEqual(t.catalog.list(query));
    expect(await threaded.getAsync('outer', query)).toEqual(t.catalog.get('outer', query));
    const broken = await rejection(threaded.getAsync('broken', query));
    expect(broken).toMatchObject({ code: 'WORKFLOW_INVALID', message: expect.stringContaining("unknown node '$nowhere.output'") });
    expect(await rejection(threaded.getAsync('missing', query))).toEqual({
      code: 'WORKFLOW_NOT_FOUND',
      message: 'Workflow not found: missing',
      details: undefined,
    });

    const definition = { name: 'draft', description: 'd', nodes: [{ id: 'a', bash: 'echo $b.output' }, { id: 'b', include: 'good' }] };
    expect(await threaded.validateAsync(definition, query)).toEqual(t.catalog.validate(definition, query));
  });

  it('saves and deletes on the thread, and the next read sees the change', async () => {
    const query = { cwd: t.cwd, source: 'project' };
    const definition = { name: 'fresh', description: 'new', nodes: [{ id: 'a', bash: 'true' }] };
    const saved = await threaded.saveAsync('fresh', definition, query);
    expect(saved).toMatchObject({ filename: 'fresh.yaml', source: 'project', workflow: { name: 'fresh' } });
    expect(existsSync(join(t.cwd, '.cairn', 'workflows', 'fresh.yaml'))).toBe(true);
    expect((await threaded.getAsync('fresh', query)).workflow.nodes).toEqual([{ id: 'a', bash: 'true' }]);
    expect(await threaded.declaresAsync('fresh', query)).toBe(true);

    expect(await threaded.deleteAsync('fresh', query)).toEqual({ filename: 'fresh.yaml', source: 'project' });
    expect(await rejection(threaded.getAsync('fresh', query))).toMatchObject({ code: 'WORKFLOW_NOT_FOUND' });
    expect(await rejection(threaded.deleteAsync('fresh', query))).toEqual({
      code: 'WORKFLOW_NOT_FOUND',
      message: 'Workflow not found: fresh',
      details: { source: 'project' },
    });
  });

  it('parses a 10,000-node file while the caller’s event loop keeps turning', async () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) => `  - id: n${i}\n    bash: "true"`).join('\n');
    t.write('home:workflows/wide.yaml', `name: wide\ndescription: many nodes\nnodes:\n${nodes}\n`);
    let turned = false;
    setImmediate(() => (turned = true));
    const entry = await threaded.getAsync('wide');
    // In-process, the parse would finish before any other callback could run.
    expect(turned).toBe(true);
    expect(entry.workflow.nodes).toHaveLength(10_000);
  });
});
