import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { fanOutYaml, ScriptedHandlers, startScheduler } from './scheduler-harness.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const ok = { status: 'completed', output: 'ok' } as const;

describe('readiness', () => {
  it('starts a node only once every dependency is done, and independent nodes together', async () => {
    const handlers = new ScriptedHandlers(() => 'hold');
    const { scheduler } = await startScheduler(home, `name: diamond
description: d
nodes:
  - { id: a, bash: "true" }
  - { id: b, bash: "true", depends_on: [a] }
  - { id: c, bash: "true", depends_on: [a] }
  - { id: d, bash: "true", depends_on: [b, c] }
`, handlers);
    await waitFor(() => handlers.held.length === 1, { what: 'a to start' });
    handlers.held[0]!.end(ok);
    await waitFor(() => handlers.held.length === 3, { what: 'b and c to start' });
    expect(handlers.order()).toEqual(['a', 'b', 'c']);
    handlers.held[1]!.end(ok);
    await new Promise((resolve) => setImmediate(resolve));
    expect(handlers.order()).toEqual(['a', 'b', 'c']);
    handlers.held[2]!.end(ok);
    await waitFor(() => handlers.held.length === 4, { what: 'd to start' });
    handlers.held[3]!.end(ok);
    expect(await scheduler.done).toBe('completed');
  });

  it('never has more attempts of a run in flight than the per-run limit', async () => {
    const handlers = new ScriptedHandlers(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return ok;
    });
    const { scheduler } = await startScheduler(home, fanOutYaml(40), handlers, { perRunLimit: 3 });
    expect(await scheduler.done).toBe('completed');
    expect(handlers.started).toHaveLength(40);
    expect(handlers.peakInFlight).toBe(3);
  });

  it('never strands a run when an attempt ends while a scheduling pass is finishing', async () => {
    // Node b ends k microtasks after node a, for every k up to 60: for some k its end is
    // reported between the pass a's end started and that pass's clean-up. It must still be
    // scheduled (here: the run must finish).
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, async (_, k) => {
        let aEnded!: () => void;
        const aEnd = new Promise<void>((resolve) => (aEnded = resolve));
        const handlers = new ScriptedHandlers(async (attempt) => {
          if (attempt.node.id === 'n0') {
            await new Promise((resolve) => setImmediate(resolve));
            aEnded();
            return ok;
          }
          await aEnd;
          for (let i = 0; i < k; i++) await null;
          return ok;
        });
        const { scheduler } = await startScheduler(home, fanOutYaml(2), handlers);
        return Promise.race([scheduler.done, new Promise((resolve) => setTimeout(() => resolve(`stranded at k=${k}`), 10_000))]);
      }),
    );
    expect(outcomes.filter((o) => o !== 'completed')).toEqual([]);
  });

  it('decides a join over many dependencies once, when the last one finishes', async () => {
    const handlers = new ScriptedHandlers(() => ok);
    const yaml = fanOutYaml(2000, { join: true }).replace(/(  - id: join\n)/, '$1    when: "$n0.output == \'ok\'"\n');
    const { scheduler, conditionChecks } = await startScheduler(home, yaml, handlers, { perRunLimit: 8 });
    expect(await scheduler.done).toBe('completed');
    expect(handlers.order().at(-1)).toBe('join');
    expect(conditionChecks.get('join')).toBe(1);
  });
});

describe('outputs in memory', () => {
  it('keeps the output of a node a later node references, and drops the others', async () => {
    const handlers = new ScriptedHandlers((a) => ({ status: 'completed', output: `out-${a.node.id}` }));
    const { scheduler, table } = await startScheduler(home, `name: refs
description: d
nodes:
  - { id: kept, bash: "true" }
  - { id: dropped, bash: "true" }
  - { id: user, bash: "echo $kept.output", depends_on: [kept, dropped] }
`, handlers);
    expect(await scheduler.done).toBe('completed');
    expect(table.get('kept')!.output).toBe('out-kept');
    expect(table.get('dropped')!.output).toBeUndefined();
    expect(table.get('user')!.output).toBeUndefined();
  });
});

describe('failures and retries', () => {
  const retrying = `name: retry
description: d
nodes:
  - id: flaky
    bash: "true"
    retry: { max_attempts: 3, delay_ms: 60000 }
  - { id: other, bash: "true" }
`;

  it('holds no slot while a node waits out its retry delay', async () => {
    let flakyTries = 0;
    const handlers = new ScriptedHandlers((a) =>
      a.node.id === 'flaky' && ++flakyTries === 1 ? { status: 'failed', error: 'blip', failureKind: 'transient' } : ok,
    );
    const { table, scheduler } = await startScheduler(home, retrying, handlers, { perRunLimit: 1 });
    // flaky fails first and waits 60 s to retry; other, behind it under a limit of 1, runs meanwhile.
    await waitFor(() => table.get('other')!.status === 'completed', { what: 'other to run during the delay' });
    expect(table.get('flaky')!.status).toBe('retry_wait');
    await scheduler.cancel();
    expect(await scheduler.done).toBe('cancelled');
    expect(handlers.order()).toEqual(['flaky', 'other']);
  });

  it('turns a handler that throws into a transient failure that the retry policy runs again', async () => {
    let tries = 0;
    const handlers = new ScriptedHandlers(() => {
      if (++tries === 1) throw new Error('worker vanished');
      return ok;
    });
    const { scheduler, table } = await startScheduler(home, `name: crashy
description: d
nodes:
  - id: a
    bash: "true"
    retry: { max_attempts: 2, delay_ms: 1000 }
`, handlers);
    expect(await scheduler.done).toBe('completed');
    expect(table.get('a')!.attempts).toBe(2);
  });

  it('fails the run, never leaves it running, when a handler keeps throwing', async () => {
    const handlers = new ScriptedHandlers(() => {
      throw new Error('worker vanished');
    });
    const { scheduler, store, run } = await startScheduler(home, fanOutYaml(3), handlers);
    expect(await scheduler.done).toBe('failed');
    expect((await store.getRun(run.id))!.status).toBe('failed');
  });

  it('skips the dependants of a failed node and records each skip', async () => {
    const handlers = new ScriptedHandlers((a) => (a.node.id === 'a' ? { status: 'failed', error: 'no', failureKind: 'exit' } : ok));
    const { scheduler, store, run } = await startScheduler(home, `name: skips
description: d
nodes:
  - { id: a, bash: "true" }
  - { id: b, bash: "true", depends_on: [a] }
  - { id: c, bash: "true", depends_on: [b] }
`, handlers);
    expect(await scheduler.done).toBe('failed');
    const skips = (await store.listRunEvents(run.id)).filter((e) => e.event_type === 'node_skipped').map((e) => e.step_name);
    expect(skips).toEqual(['b', 'c']);
    expect(handlers.order()).toEqual(['a']);
  });
});
