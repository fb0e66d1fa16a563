import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRoom, typesAt, type Room } from '../harness/room.js';

/**
 * `bash` nodes' decisions as the exec handler and the scheduler make them (the worker runs the
 * program): what a failure records and does to dependants, a retry as a new attempt of the same
 * invocation, a timeout, and a node whose body cannot be prepared.
 */

let room: Room;
beforeEach(async () => {
  room = await openRoom();
});
afterEach(async () => {
  await room.home.close();
});

describe('a failing program', () => {
  it('fails the node with its exit code and stderr; its dependants are skipped and the run fails', async () => {
    const run = await room.start(`name: fails
description: x
nodes:
  - id: build
    bash: "echo partial; echo 'no compiler' >&2; exit 3"
  - id: ship
    depends_on: [build]
    bash: printf ship
`);
    const done = await room.settle(run.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/build/);
    const events = await room.events(run.id);
    const failed = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'build')!;
    expect(failed.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'exec_failed' });
    expect(JSON.stringify(failed.data)).toContain('no compiler');
    expect(typesAt(events, 'ship')).toEqual(['node_skipped']);
  });

  it('with retry on all errors: runs again as a new attempt of the same invocation, and completes', async () => {
    const mark = join(room.home.home, 'tried');
    const run = await room.start(`name: flaky
description: x
nodes:
  - id: net
    bash: "if [ -e '${mark}' ]; then printf ok; else touch '${mark}'; exit 1; fi"
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    const started = events.filter((e) => e.event_type === 'node_started' && e.step_name === 'net');
    expect(started).toHaveLength(2);
    expect(new Set(started.map((e) => e.data.execution.invocation.id)).size).toBe(1);
    expect(new Set(started.map((e) => e.data.execution.attempt.id)).size).toBe(2);
    expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'net')?.data.node_output).toBe('ok');
  });

  it('without a retry: one attempt, never run again', async () => {
    const log = join(room.home.home, 'runs.log');
    const run = await room.start(`name: once\ndescription: x\nnodes:\n  - id: a\n    bash: "echo x >> '${log}'; exit 1"\n`);
    expect((await room.settle(run.id)).status).toBe('failed');
    expect(typesAt(await room.events(run.id), 'a')).toEqual(['node_started', 'node_failed']);
    expect(readFileSync(log, 'utf8')).toBe('x\n');
  });
});

describe('timeout', () => {
  it('a program past its timeout is stopped and the node fails as timed out', async () => {
    const held = room.held('slow');
    const run = await room.start(`name: slow
description: x
nodes:
  - id: slow
    bash: "${held.bash}"
    timeout: 500
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    const failed = (await room.events(run.id)).find((e) => e.event_type === 'node_failed' && e.step_name === 'slow')!;
    expect(failed.data.execution.lifecycle).toMatchObject({ failureKind: 'timeout' });
    expect(held.runs()).toBe(1);
  });
});

describe('trigger rules and conditions', () => {
  it('a node whose condition is false is skipped and its dependants still decide by their own rule', async () => {
    const run = await room.start(`name: branches
description: x
nodes:
  - id: pick
    bash: printf left
  - id: left
    depends_on: [pick]
    when: "$pick.output == 'left'"
    bash: printf L
  - id: right
    depends_on: [pick]
    when: "$pick.output == 'right'"
    bash: printf R
  - id: join
    depends_on: [left, right]
    trigger_rule: one_success
    bash: printf "joined $left.output"
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    expect(typesAt(events, 'right')).toEqual(['node_skipped']);
    expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'join')?.data.node_output).toBe('joined L');
  });
});

describe('output_type', () => {
  const docs = readFileSync(fileURLToPath(new URL('../../../docs/workflows.md', import.meta.url)), 'utf8');
  const docSection = docs.slice(docs.indexOf('## Output files (`output_type`)'));
  const example = readFileSync(fileURLToPath(new URL('../../fixtures/workflows/examples/workflows/release-summary.yaml', import.meta.url)), 'utf8');
  const nodesDir = (runId: string) => join(room.home.paths.runArtifacts(runId), 'nodes');
  const meta = async (runId: string, name: string) => JSON.parse(await readFile(join(nodesDir(runId), `${name}.meta.json`), 'utf8')) as Record<string, unknown>;
  const output = (events: Awaited<ReturnType<Room['events']>>, path: string) =>
    events.findLast((e) => e.event_type === 'node_completed' && e.step_name === path)?.data.node_output;

  it('the documented example: the output and its meta are written before the dependant starts; a node without it writes nothing', async () => {
    const run = await room.start(example);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    expect(output(events, 'headline')).toBe('fixed the parser');
    expect(await readdir(nodesDir(run.id))).toEqual(['summary.md', 'summary.meta.json']);
    expect(await readFile(join(nodesDir(run.id), 'summary.md'), 'utf8')).toBe('fixed the parser\nfaster start-up');
    // The meta has the documented keys, and the documented label and size.
    const documented = JSON.parse(/```json\n([\s\S]*?)```/.exec(docSection)![1]!) as Record<string, unknown>;
    const written = await meta(run.id, 'summary');
    expect(Object.keys(written).sort()).toEqual(Object.keys(documented).sort());
    expect(written).toEqual({ ...documented, runId: run.id, producedAt: expect.any(String) });
    expect(new Date(written.producedAt as string).toISOString()).toBe(written.producedAt);
  });

  it('a failed node writes nothing until a resume runs it again; nested nodes get folders; a node run again replaces its files', async () => {
    const flag = join(room.home.home, 'pass');
    const count = join(room.home.home, 'count');
    const iterations = join(room.home.home, 'iterations');
    await room.workflow('echo', `name: echo\ndescription: x\nnodes:\n  - id: say\n    bash: 'printf "said %s" "$ARGUMENTS"'\n    output_type: said\n`);
    const run = await room.start(`name: kept
description: x
nodes:
  - id: flaky
    bash: "test -e '${flag}' && printf 'second try'"
    output_type: report
  - id: counted
    always_run: true
    bash: "echo x >> '${count}'; printf %s $(wc -l < '${count}')"
    output_type: count
  - id: fix
    output_type: fix-log
    loop_group:
      max_iterations: 3
      until_bash: "test $(wc -l < '${iterations}') -ge 2"
      nodes:
        - id: test
          bash: "echo x >> '${iterations}'; printf 'iteration %s' $(wc -l < '${iterations}')"
          output_type: test-log
  - id: each
    workflow: echo
    fan_out: { items: '["a", "b"]' }
    output_type: fan
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    const dir = nodesDir(run.id);
    const read = (name: string) => readFile(join(dir, name), 'utf8');
    expect(existsSync(join(dir, 'flaky.md'))).toBe(false);
    expect(existsSync(join(dir, 'flaky.meta.json'))).toBe(false);
    expect(await read('counted.md')).toBe('1');
    // A loop_group body node: the last iteration's output; the group: its final output.
    expect(await read('fix/test.md')).toBe('iteration 2');
    expect(await read('fix.md')).toBe('iteration 2');
    expect(await meta(run.id, 'fix/test')).toMatchObject({ outputType: 'test-log', size: 11 });
    // An in-run fan-out: each instance's child node in a folder of its own, the fan-out's aggregate beside.
    expect(await read('each[0]/say.md')).toBe('said a');
    expect(await read('each[1]/say.md')).toBe('said b');
    expect(await meta(run.id, 'each[1]/say')).toMatchObject({ outputType: 'said', runId: run.id, size: 6 });
    expect(JSON.parse(await read('each.md'))).toEqual(['said a', 'said b']);

    await writeFile(flag, '');
    await room.resume(run.id);
    expect((await room.settle(run.id)).status).toBe('completed');
    expect(await read('flaky.md')).toBe('second try');
    expect(await meta(run.id, 'flaky')).toMatchObject({ outputType: 'report', size: 10 });
    // always_run ran again and replaced its files; the reused loop_group left its own as they were.
    expect(await read('counted.md')).toBe('2');
    expect(await meta(run.id, 'counted')).toMatchObject({ size: 1 });
    expect(await read('fix/test.md')).toBe('iteration 2');
    expect(readFileSync(iterations, 'utf8')).toBe('x\nx\n');
  });

  it('best-effort: a link a node left is replaced, never followed; a folder that leads elsewhere is a warning, and the run completes', async () => {
    const victim = join(room.home.home, 'victim.txt');
    const elsewhere = join(room.home.home, 'elsewhere');
    await writeFile(victim, 'untouched');
    await mkdir(elsewhere);
    const run = await room.start(`name: planted
description: x
nodes:
  - id: plant
    bash: "mkdir -p \\"$ARTIFACTS_DIR/nodes\\" && ln -s '${victim}' \\"$ARTIFACTS_DIR/nodes/note.md\\" && ln -s '${elsewhere}' \\"$ARTIFACTS_DIR/nodes/group\\""
  - id: note
    depends_on: [plant]
    bash: printf mine
    output_type: note
  - id: group
    depends_on: [note]
    loop_group:
      max_iterations: 1
      until_bash: "true"
      nodes:
        - id: inner
          bash: printf inside
          output_type: inner
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(await readFile(join(nodesDir(run.id), 'note.md'), 'utf8')).toBe('mine');
    expect(await readdir(elsewhere)).toEqual([]);
    const events = await room.events(run.id);
    expect(output(events, 'group/inner')).toBe('inside');
    const warnings = events.filter((e) => e.event_type === 'workflow_parse_warnings').flatMap((e) => e.data.warnings as string[]);
    expect(warnings).toEqual([
      "Node 'group/inner': its output_type files (nodes/group/inner.md and .meta.json) could not be written: nodes/ or a folder in it is a link that leads elsewhere. The node completed; its output is in its record.",
    ]);
  });
});
