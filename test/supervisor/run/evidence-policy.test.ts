import { rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runArtifactsDir } from '../../../src/codebases/workspace-paths.js';
import { startSupervisor, type LooseEvent, type SupervisorHarness } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * `evidence_policy` through the real supervisor: a run whose nodes all succeed but leave no
 * required file under `$ARTIFACTS_DIR` (or an empty one, or a link out of it) fails, saying which;
 * once the file is there, a resume completes it without running a node again.
 */

let home: TempHome;
let sup: SupervisorHarness;
beforeEach(async () => {
  home = await makeTempHome();
  sup = await startSupervisor(home);
});
afterEach(async () => {
  await home.close();
});

/** docs/runs.md's example, as the docs show it (test/fixtures/workflows/examples). */
const documented = readFileSync(fileURLToPath(new URL('../../fixtures/workflows/examples/workflows/reviewed-change.yaml', import.meta.url)), 'utf8');

const of = (events: LooseEvent[], type: string, step: string | null = null) => events.filter((e) => e.event_type === type && e.step_name === step);

it('fails a run whose nodes left a required file missing, empty or linked out of $ARTIFACTS_DIR; a resume once it is there completes the run', async () => {
  // The review node writes an empty file; the summary is a link to a file outside the run's folder.
  const outside = join(home.home, 'not-the-runs.txt');
  await writeFile(outside, 'something else\n');
  const forgetful = documented
    .replace('bash: printf \'%s\\n\' "Looks right." > "$ARTIFACTS_DIR/review.md"', 'bash: \': > "$ARTIFACTS_DIR/review.md"\'')
    .replace(
      'bash: mkdir -p "$ARTIFACTS_DIR/reports" && echo "$change.output" > "$ARTIFACTS_DIR/reports/summary.txt"',
      `bash: mkdir -p "$ARTIFACTS_DIR/reports" && ln -s ${JSON.stringify(outside)} "$ARTIFACTS_DIR/reports/summary.txt"`,
    );
  expect(forgetful).not.toContain('Looks right.');
  expect(forgetful).toContain('ln -s');
  const run = await sup.createRun(forgetful);
  const failed = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(failed.status).toBe('failed');
  let events = await sup.events(run.id);
  const artifacts = runArtifactsDir(home.paths, failed);
  expect(of(events, 'evidence_validation_failed')[0]?.data).toEqual({
    required: ['review.md', 'reports/summary.txt'],
    missing: [
      { path: 'review.md', why: 'empty' },
      { path: 'reports/summary.txt', why: 'outside $ARTIFACTS_DIR' },
    ],
  });
  expect(failed.error).toBe(
    "DAG workflow 'reviewed-change' completed its nodes without the evidence its evidence_policy requires under $ARTIFACTS_DIR: " +
      'review.md (empty), reports/summary.txt (outside $ARTIFACTS_DIR). Provide it and resume the run.',
  );
  // The failure comes after the check's event, and no workflow_completed was written.
  expect(events.map((e) => e.event_type).slice(-2)).toEqual(['evidence_validation_failed', 'workflow_failed']);
  expect(of(events, 'workflow_completed')).toEqual([]);

  // The evidence, provided by hand; the resume runs nothing again and completes.
  await writeFile(join(artifacts, 'review.md'), 'Reviewed by hand.\n');
  await rm(join(artifacts, 'reports', 'summary.txt'));
  await writeFile(join(artifacts, 'reports', 'summary.txt'), '1 file changed\n');
  await sup.store.requestRunContinuation({ runId: run.id, kind: 'resume_run', fromStatuses: ['failed'], payload: {} });
  await waitFor(async () => of(await sup.events(run.id), 'workflow_resumed').length === 1 || undefined, { what: 'the resume' });
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  events = await sup.events(run.id);
  expect(of(events, 'node_started', 'change')).toHaveLength(1);
  expect(of(events, 'node_started', 'summarise')).toHaveLength(1);
  expect(of(events, 'node_started', 'review')).toHaveLength(1);
});

it('completes the documented example, whose nodes leave their evidence', async () => {
  const run = await sup.createRun(documented);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect(of(await sup.events(run.id), 'evidence_validation_failed')).toEqual([]);
});

it('refuses, when the workflow loads, a required path that could leave $ARTIFACTS_DIR', async () => {
  for (const path of ['../outside.md', '/etc/passwd', 'a/../../b', 'a//b', './a']) {
    const yaml = documented.replace('    - review.md\n', `    - ${JSON.stringify(path)}\n`);
    await expect(sup.createRun(yaml)).rejects.toThrow(/must be a path inside \$ARTIFACTS_DIR/);
  }
});
