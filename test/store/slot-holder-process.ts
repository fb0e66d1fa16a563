import { openPgClusterSlots } from '../../src/store/postgres/slot-locks.js';

/**
 * A process that takes one place of `key` (limit `limit`) on the database `url`, says `holding`,
 * and keeps it until it is killed (test/store/postgres-cluster-slots.test.ts).
 */
const [url, key, limit] = process.argv.slice(2);
const slots = openPgClusterSlots(url!);
void slots.run(key!, Number(limit), async () => {
  process.send?.({ type: 'holding' });
  await new Promise(() => undefined);
});
