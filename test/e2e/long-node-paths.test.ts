import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MAX_FILE_NAME_BYTES } from '../../src/shared/file-name.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A node's files under the run's artifacts are named from its path: an id too long for a file
 * name is refused when the workflow is validated, and a path composed through includes past 255
 * bytes (each id short enough) still spills its output instead of failing with ENAMETOOLONG.
 */

let home: TempHome;
let server: RunningServer;
beforeEach(async () => {
  home = await makeTempHome();
  server = await startServer(home);
});
afterEach(async () => {
  await home.close();
});

/** A bash body printing 40,000 bytes: more than an event row keeps, so the output is spilled. */
const bigOutput = `bash: 'head -c 40000 /dev/zero | tr "\\\\0" x'`;

it('refuses a 300-character node id at validation, naming the id and the limit', async () => {
  const id = 'n'.repeat(300);
  const definition = { name: 'long-id', description: 'd', nodes: [{ id, bash: 'echo hi' }] };
  const res = await fetch(`${server.url}/api/workflows/validate`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ definition }),
  });
  expect(res.status).toBe(200);
  const expected = `node id '${'n'.repeat(40)}…' is 300 characters long: a node id is at most 100 characters; shorten it`;
  expect(await res.json()).toEqual({ valid: false, errors: [`Node '${'n'.repeat(40)}…': ${expected}`] });

  // A file that declares one does not load, so it never starts a run that would fail late.
  await writeHomeWorkflow(home, 'long-id', `name: long-id\ndescription: d\nnodes:\n  - id: ${id}\n    ${bigOutput}\n`);
  const run = await fetch(`${server.url}/api/workflows/long-id/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(run.status).toBe(400);
  expect(JSON.stringify(await run.json())).toContain('a node id is at most 100 characters');
});

it('spills the large output of a node whose path, composed through includes, is longer than a file name may be', async () => {
  const [a, b, c] = ['a', 'b', 'c'].map((letter) => letter.repeat(100));
  await writeHomeWorkflow(home, 'inner', `name: inner\ndescription: d\nnodes:\n  - id: ${c}\n    ${bigOutput}\n`);
  await writeHomeWorkflow(home, 'middle', `name: middle\ndescription: d\nnodes:\n  - id: ${b}\n    include: inner\n`);
  await writeHomeWorkflow(home, 'outer', `name: outer\ndescription: d\nnodes:\n  - id: ${a}\n    include: middle\n`);
  const { runId } = await startRun(server.url, 'outer');
  const detail = await waitFor(async () => {
    const got = await getRun(server.url, runId);
    return ['completed', 'failed'].includes(got.run.status) ? got : undefined;
  }, { what: 'the run to end', timeoutMs: 30_000 });
  const node = `${a}__${b}__${c}`;
  const ended = detail.events.find((e) => e.step_name === node && (e.event_type === 'node_completed' || e.event_type === 'node_failed'));
  expect(ended?.data.error, server.output()).toBeUndefined();
  expect(detail.run.status, String(detail.run.error)).toBe('completed');
  const spill = ended!.data.node_output_spill_path as string;
  expect(existsSync(spill)).toBe(true);
  const folder = basename(dirname(spill));
  expect(folder.length).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
  expect(folder.startsWith(node.slice(0, 100))).toBe(true);
});
