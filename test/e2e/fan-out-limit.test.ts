import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { peakOverlap } from '../helpers/overlap.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { fanOutYaml, getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});


it('runs a 100-node fan-out with exactly 10 nodes in flight at once, never more', async () => {
  const server = await startServer(home, { CAIRN_MAX_CONCURRENCY: '10' });
  // Each node reports, in microseconds, when its own process started and finished its work: the
  // intervals are measured inside the processes, so they prove what ran at once.
  const command = 's=$(date +%s%6N); sleep 0.2; e=$(date +%s%6N); echo "$s $e"';
  await writeHomeWorkflow(home, 'wide', fanOutYaml('wide', 100, command));
  const { runId } = await startRun(server.url, 'wide');

  const detail = await waitFor(
    async () => {
      const d = await getRun(server.url, runId);
      return ['completed', 'failed', 'cancelled'].includes(d.run.status) ? d : undefined;
    },
    { what: 'the fan-out to finish' },
  );
  expect(detail.run.status).toBe('completed');

  const completed = detail.events.filter((e) => e.event_type === 'node_completed');
  expect(completed).toHaveLength(100);
  const intervals = completed.map((e) => String(e.data.node_output).split(' ').map(Number) as [number, number]);
  expect(peakOverlap(intervals)).toBe(10);
});
