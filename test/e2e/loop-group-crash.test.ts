import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * kill -9 of the supervisor in the middle of a loop_group's iteration (its body is a sub-DAG):
 * the body nodes of that iteration that completed before the crash keep their success (never
 * run again), the one cut short runs again, and the loop goes on from there.
 */

let home: TempHome;
let server: RunningServer;
let marks: string;
beforeEach(async () => {
  home = await makeTempHome();
  marks = join(home.home, 'marks');
  await mkdir(marks);
  server = await startServer(home);
});
afterEach(async () => {
  await home.close();
});

it('a loop_group iteration cut short by kill -9 after its first body node completed: that node is not run again, the second runs again, and the group completes', async () => {
  await writeHomeWorkflow(home, 'group', `name: group
description: a loop group whose second iteration is cut short by a crash
nodes:
  - id: countdown
    loop_group:
      max_iterations: 5
      until_bash: 'test "$(wc -l < "${marks}/tock")" -ge 3'
      nodes:
        - id: tick
          bash: 'echo tick >> "${marks}/tick"; printf "t%s" "$(wc -l < "${marks}/tick" | tr -d " ")"'
        - id: tock
          depends_on: [tick]
          bash: |
            n=$(wc -l < "${marks}/tick" | tr -d " ")
            if [ "$n" -eq 2 ] && [ ! -e "${marks}/crashed" ]; then touch "${marks}/in-tock-2"; sleep 30; fi
            echo "$tick.output" >> "${marks}/tock"
            printf "%s" "$tick.output"
  - id: after
    depends_on: [countdown]
    bash: 'printf "%s" "after: $countdown.output"'
`);
  const { runId } = await startRun(server.url, 'group');
  await waitFor(() => existsSync(join(marks, 'in-tock-2')) || undefined, { what: 'iteration 2 tock to begin' });
  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');
  await writeFile(join(marks, 'crashed'), '');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end after the crash', timeoutMs: 60_000 });
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('completed');
  // tick ran once per iteration: its iteration-2 success survived the crash.
  expect((await readFile(join(marks, 'tick'), 'utf8')).trim().split('\n')).toHaveLength(3);
  expect((await readFile(join(marks, 'tock'), 'utf8')).trim().split('\n')).toEqual(['t1', 't2', 't3']);
  const ticks = events.filter((e) => e.step_name === 'countdown/tick' && e.event_type === 'node_completed');
  expect(ticks.map((e) => e.data.execution.invocation.loopPath[0].iteration)).toEqual([1, 2, 3]);
  expect(events.filter((e) => e.step_name === 'countdown/tick' && e.event_type === 'node_started')).toHaveLength(3);
  expect(events.find((e) => e.step_name === 'after' && e.event_type === 'node_completed')!.data.node_output).toBe('after: t3');
}, 90_000);
