import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewHook, Store } from '../../../src/store/store.js';
import { DeliveryRetention } from '../../../src/supervisor/process/delivery-retention.js';
import { newRun } from '../../store/fixtures.js';
import { startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { capturingLogger } from './timed-supervisor.js';

const DAY_MS = 86_400_000;

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

function newHook(): NewHook {
  return { id: randomUUID(), name: `ci-${randomUUID().slice(0, 8)}`, workflowName: 'demo', codebaseId: null, signature: 'generic', inputs: {}, sealedSecret: 'sealed' };
}

/** Admits one delivery per entry, each received `ageMs` before `now` by the store's clock; answers their run ids. */
async function admitAged(home: TempHome, hookId: string, now: number, ages: Record<string, number>): Promise<Map<string, string>> {
  let at = now;
  const store = home.openStore({ clock: () => at });
  const runs = new Map<string, string>();
  for (const [deliveryId, ageMs] of Object.entries(ages)) {
    at = now - ageMs;
    const run = newRun();
    runs.set(deliveryId, run.id);
    await store.admitHookDelivery({ hookId, deliveryId, run });
  }
  return runs;
}

const deliveryIds = async (store: Store, hookId: string) =>
  (await store.listHookDeliveries(hookId, { limit: 100, offset: 0 })).deliveries.map((d) => d.delivery_id).sort();

describe("the supervisor's upkeep forgets old webhook deliveries", () => {
  it('at start, those older than webhooks.deliveryRetentionDays go and the rest stay; their runs stay; the log says how many', async () => {
    await mkdir(home.home, { recursive: true });
    await writeFile(home.paths.config, 'webhooks:\n  deliveryRetentionDays: 7\n');
    const store = home.openStore();
    const hook = await store.createHook(newHook());
    const runs = await admitAged(home, hook.id, Date.now(), { 'b-1': 30 * DAY_MS, 'b-2': 8 * DAY_MS, 'b-3': 7 * DAY_MS + 60_000, 'b-4': 6 * DAY_MS });
    const { log, lines } = capturingLogger();
    await startSupervisor(home, { log, threads: 1 });
    const pruned = await waitFor(() => lines.find((l) => l.msg === 'hook.deliveries_pruned'), { what: 'the first pass' });
    expect(pruned).toMatchObject({ deliveries: 3, batches: 1, retentionDays: 7 });
    expect(await deliveryIds(store, hook.id)).toEqual(['b-4']);
    for (const runId of runs.values()) expect(await store.getRun(runId)).toBeDefined();
  });

  it('prunes in batches and again at each period, by the clock it is given', async () => {
    const store = home.openStore();
    const hook = await store.createHook(newHook());
    let now = Date.parse('2026-06-01T00:00:00.000Z');
    await admitAged(home, hook.id, now, { 'o-1': 31 * DAY_MS, 'o-2': 32 * DAY_MS, 'o-3': 33 * DAY_MS, 'o-4': 34 * DAY_MS, 'o-5': 35 * DAY_MS, young: DAY_MS });
    const { log, lines } = capturingLogger();
    const retention = new DeliveryRetention({ store, log, retentionDays: 30, clock: () => now, everyMs: 20, batch: 2 });
    home.defer(() => retention.stop());
    retention.start();
    const pruned = () => lines.filter((l) => l.msg === 'hook.deliveries_pruned');
    await waitFor(() => pruned().length === 1, { what: 'the first pass' });
    // Five old ones in batches of two: 2, 2 and the last 1.
    expect(pruned()[0]).toMatchObject({ deliveries: 5, batches: 3, receivedBefore: '2026-05-02T00:00:00.000Z' });
    expect(await deliveryIds(store, hook.id)).toEqual(['young']);
    // A later pass, not the first one again, takes the one that has aged since.
    now += 30 * DAY_MS;
    await waitFor(async () => (await deliveryIds(store, hook.id)).length === 0, { what: 'a later pass' });
    await retention.stop();
    expect(pruned().map((l) => l.deliveries)).toEqual([5, 1]);
  });
});
