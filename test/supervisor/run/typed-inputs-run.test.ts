import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunRow } from '../../helpers/supervisor.js';
import { loadWorkflowText } from '../../../src/workflow/loading/load-workflow.js';
import { resolveRunInputs } from '../../../src/workflow/schema/run-inputs.js';
import { openRoom, type Room } from '../harness/room.js';

/**
 * Typed inputs on the real engine: a number given as text ("3.0", as the CLI sends it) is the
 * number 3 in a `when:`, reaches a child run and its `with:` as a number, a fan-out item reaches
 * its child as the object it is, and a resume of the failed run reads the same typed values.
 */

let room: Room;
beforeAll(async () => {
  room = await openRoom();
  await room.workflow('typed-child', `name: typed-child
description: x
inputs:
  n: { type: number }
  labels: { type: array, items: { type: string } }
  note: { type: string }
  fixed: { type: object }
nodes:
  - id: more
    when: "$INPUTS.n == 3"
    bash: printf '%s %s' "$INPUTS.n" "$INPUTS.fixed"
`);
  await room.workflow('typed-item', `name: typed-item
description: x
inputs:
  item: { type: object }
nodes:
  - id: show
    bash: printf '%s' "$INPUTS.item"
`);
});
afterAll(async () => {
  await room.home.close();
});

async function outputOf(runId: string, nodeId: string): Promise<string | undefined> {
  return (await room.events(runId)).find((e) => e.event_type === 'node_completed' && e.step_name === nodeId)?.data.node_output;
}

describe('typed inputs through a run', () => {
  it('compares numerically, hands children typed values, and keeps them across a resume', async () => {
    const go = join(room.home.home, 'marks', 'go');
    const yaml = `name: typed-parent
description: x
inputs:
  count: { type: number }
  labels: { type: array, items: { type: string }, default: ["a", "b"] }
nodes:
  - id: exact
    when: "$INPUTS.count == 3"
    bash: printf '%s|%s' "$INPUTS.count" "$INPUTS.labels"
  - id: child
    workflow: typed-child
    with: { n: $INPUTS.count, labels: $INPUTS.labels, note: "count is $INPUTS.count", fixed: { depth: 2 } }
  - id: items
    bash: printf '[{"k":1},{"k":2}]'
  - id: each
    depends_on: [items]
    workflow: typed-item
    fan_out: { items: "$items.output", as: item }
  - id: late
    depends_on: [exact, child, each]
    when: "$INPUTS.count == 3"
    bash: test -f '${go}' && printf 'late %s' "$INPUTS.count"
`;
    const loaded = loadWorkflowText(yaml);
    if (!loaded.ok) throw new Error(loaded.error);
    // As the CLI's `--input count=3.0` reaches the run route: text, converted by the declared type.
    const inputs = resolveRunInputs('typed-parent', loaded.workflow.inputs, { text: { count: '3.0' } });
    expect(inputs).toEqual({ count: 3, labels: ['a', 'b'] });
    const run = await createRunRow(room.sup.store, yaml, { inputs });

    expect((await room.settle(run.id)).status).toBe('failed');
    // "3.0" as text is not '3'; as the number it was declared, it is 3.
    expect(await outputOf(run.id, 'exact')).toBe('3|["a","b"]');
    const [child] = await room.sup.store.listChildRuns(run.id, 'child');
    expect(child!.inputs).toEqual({ n: 3, labels: ['a', 'b'], note: 'count is 3', fixed: { depth: 2 } });
    expect(await outputOf(child!.id, 'more')).toBe('3 {"depth":2}');
    const items = await room.sup.store.listChildRuns(run.id, 'each');
    expect(items.map((c) => c.inputs)).toEqual([{ item: { k: 1 } }, { item: { k: 2 } }]);
    expect(await outputOf(items[1]!.id, 'show')).toBe('{"k":2}');

    writeFileSync(go, '');
    await room.resume(run.id);
    const resumed = await room.settle(run.id);
    expect(resumed.status).toBe('completed');
    expect(resumed.inputs).toEqual({ count: 3, labels: ['a', 'b'] });
    expect(await outputOf(run.id, 'late')).toBe('late 3');
  });

  it('runs the documented example (docs/workflows.md, "Typed inputs") as it says, with text given as the CLI gives it', async () => {
    const yaml = readFileSync(new URL('../../fixtures/workflows/examples/workflows/batch-resize.yaml', import.meta.url), 'utf8');
    const loaded = loadWorkflowText(yaml);
    if (!loaded.ok) throw new Error(loaded.error);
    const wide = await createRunRow(room.sup.store, yaml, {
      inputs: resolveRunInputs('batch-resize', loaded.workflow.inputs, { text: { width: '1200' } }),
    });
    expect((await room.settle(wide.id)).status).toBe('completed');
    expect(await outputOf(wide.id, 'plan')).toBe('width 1200, formats ["png","jpg"]');
    expect(await outputOf(wide.id, 'wide')).toBe('a wide batch');
    expect(await outputOf(wide.id, 'resize')).toBe('resizing to 1200 at high quality');

    const dry = await createRunRow(room.sup.store, yaml, {
      inputs: resolveRunInputs('batch-resize', loaded.workflow.inputs, { text: { dry_run: 'true' } }),
    });
    expect((await room.settle(dry.id)).status).toBe('completed');
    const skipped = (await room.events(dry.id)).filter((e) => e.event_type === 'node_skipped').map((e) => e.step_name);
    expect(skipped.sort()).toEqual(['resize', 'wide']);
  });

  it('a with: value the child’s type refuses fails the node naming the input, and starts no child', async () => {
    const run = await createRunRow(room.sup.store, `name: typed-misfit
description: x
nodes:
  - id: child
    workflow: typed-child
    with: { n: many, labels: [], note: x, fixed: {} }
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    const failed = (await room.events(run.id)).find((e) => e.event_type === 'node_failed' && e.step_name === 'child');
    expect(failed?.data.error).toBe(
      `Node 'child': cannot start child workflow 'typed-child': Input 'n' of workflow 'typed-child': expected a number, got the text "many"`,
    );
    expect(await room.sup.store.listChildRuns(run.id, 'child')).toEqual([]);
  });
});
