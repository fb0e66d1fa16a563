import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Run } from '../../../src/store/schemas/run.js';
import { forkScript } from '../fork-script.js';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend, type StoreHarness } from './backend.js';

const writerScript = fileURLToPath(new URL('./event-writer-process.ts', import.meta.url));
const writers = 3;
const iterationsPerWriter = 150;

/** Starts a writer process on `run`; `go` lets it write and resolves with its report. */
async function startWriter(h: StoreHarness, run: Run) {
  const child = forkScript(writerScript, [JSON.stringify(h.config), run.id, run.conversation_id, String(iterationsPerWriter)]);
  h.defer(() => child.kill());
  await child.next('ready');
  return {
    async go(): Promise<{ written: number; errors: unknown[] }> {
      const done = child.next('done');
      child.send({ type: 'go' });
      const report = await done;
      return { written: report.written as number, errors: report.errors as unknown[] };
    },
  };
}

/** EventStore under concurrency: the promise the SSE tailer is built on. */
export function describeEventOrderContract(backend: StoreBackend): void {
  describe('event order under concurrent writers', () => {
    const h = useHarness(backend);

    it('event seq becomes visible in increasing order to a tailer while several writers commit', async () => {
      const store = h().open();
      const runs = await Promise.all(Array.from({ length: writers }, () => store.createRun(newRun())));
      const started = await Promise.all(runs.map((run) => startWriter(h(), run)));

      let writersDone = false;
      const reports = Promise.all(started.map((w) => w.go())).finally(() => (writersDone = true));
      // The SSE tailer's loop: read past the last seq seen, remember the largest, repeat. A row
      // that became visible with a smaller seq than one already read would never be read.
      const seen: number[] = [];
      let lastSeen = 0;
      for (;;) {
        const finished = writersDone;
        const rows = await store.listEventsAfter(lastSeen, 25);
        for (const row of rows) {
          seen.push(row.seq);
          lastSeen = Math.max(lastSeen, row.seq);
        }
        if (rows.length > 0) continue;
        if (finished) break;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }

      const results = await reports;
      // Writers under contention wait for each other; none of them sees an error.
      expect(results.flatMap((r) => r.errors)).toEqual([]);
      const committed = (await store.listEventsAfter(0, 1_000_000)).map((e) => e.seq);
      expect(committed).toHaveLength(results.reduce((sum, r) => sum + r.written, 0));
      for (const [i, run] of runs.entries()) {
        expect(await store.listRunEvents(run.id)).toHaveLength(results[i]!.written);
      }
      // Every committed row, exactly once, in seq order.
      expect(seen).toEqual(committed);
    });
  });
}
