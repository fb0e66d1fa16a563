import type { Run } from '../src/store/schemas/run.js';
import { startRun, fanOutYaml } from '../test/helpers/workflows.js';
import { addWorkflow, openSession } from './session.js';

/**
 * How late a schedule fires while the engine is busy: a schedule every second (`allow_all`, a
 * one-node workflow) for `ticks` due times, while 1,000-node fan-outs of `sleep 0.05` run one after
 * another. A fire's lateness is its run's creation (the store's clock, in the transaction that
 * decides the due time) minus its due time.
 */
export interface ScheduleTicksRow {
  ticks: number;
  fanOutsStarted: number;
  p50: number;
  p99: number;
  max: number;
  /** Due times decided otherwise than started (there should be none). */
  notStarted: number;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function scheduleTicks(ticks = 1_000): Promise<ScheduleTicksRow> {
  const session = await openSession();
  try {
    await addWorkflow(session, 'tick', 'name: tick\ndescription: one node\nnodes:\n  - id: a\n    bash: "true"\n');
    await addWorkflow(session, 'fan', fanOutYaml('fan', 1_000, 'sleep 0.05'));
    const store = session.home.openStore();
    let fanOutsStarted = 0;
    let open = (await startRun(session.server.url, 'fan')).runId;
    fanOutsStarted++;
    const res = await fetch(`${session.server.url}/api/schedules`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench-tick', workflow: 'tick', cron: '* * * * * *', overlap: 'allow_all', catchUp: '1h' }),
    });
    const schedule = (await res.json()) as { id: string };
    for (;;) {
      const fires = await store.listScheduleFires(schedule.id, ticks);
      if (fires.length >= ticks) break;
      // Keep a fan-out running the whole time.
      const fan = await store.getRun(open);
      if (fan && ['completed', 'failed', 'cancelled'].includes(fan.status)) {
        open = (await startRun(session.server.url, 'fan')).runId;
        fanOutsStarted++;
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
    await fetch(`${session.server.url}/api/schedules/bench-tick/pause`, { method: 'POST' });
    const fires = (await store.listScheduleFires(schedule.id, ticks)).reverse();
    const runs = new Map<string, Run>();
    for (const run of await store.listRuns({ workflowName: 'tick', limit: ticks + 10 })) runs.set(run.id, run);
    const late = fires
      .filter((f) => f.run_id && runs.has(f.run_id))
      .map((f) => Date.parse(runs.get(f.run_id!)!.created_at) - Date.parse(f.due_at))
      .sort((a, b) => a - b);
    return {
      ticks: fires.length, fanOutsStarted, p50: percentile(late, 50), p99: percentile(late, 99), max: late.at(-1)!,
      notStarted: fires.filter((f) => f.outcome !== 'started').length,
    };
  } finally {
    await session.close();
  }
}

export function formatScheduleTicksTable(row: ScheduleTicksRow): string {
  return [
    `## A schedule every second while 1,000-node fan-outs run (${row.ticks} ticks)\n`,
    '| ticks | fan-outs started | fire lateness p50 | p99 | max | due times not started |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${row.ticks} | ${row.fanOutsStarted} | ${row.p50} ms | ${row.p99} ms | ${row.max} ms | ${row.notStarted} |`,
    '',
  ].join('\n');
}
