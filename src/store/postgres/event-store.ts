import type { NewRunEvent, RunEvent, StreamEvent } from '../schemas/event.js';
import type { EventStore } from '../events.js';
import { eventStatements, seqsAfterCommit, type PendingEvent } from './events-sql.js';
import type { PgSession } from './session.js';
import { fenceRefusal } from '../rules/write-fence.js';

const runIdsOf = (events: readonly NewRunEvent[]) => [...new Set(events.map((e) => e.run_id))].sort();

interface PendingAppend {
  events: readonly NewRunEvent[];
  resolve: (rows: RunEvent[]) => void;
  reject: (err: unknown) => void;
}

/** The rows as written, with the seqs their commit gave them. */
export async function withSeqs<E extends { seq: number }>(session: PgSession, pending: readonly PendingEvent<E>[]): Promise<E[]> {
  if (pending.length === 0) return [];
  const seqs = await session.read('read the seqs of new events', (q) => eventStatements(q).seqsOf(pending.map((p) => p.id)));
  // A row gone already (its run deleted since) keeps no seq; it is left out, as if never read.
  return pending.filter((p) => seqs.has(p.id)).map((p) => ({ ...p.event, seq: seqs.get(p.id)! }));
}

/** The ids of the rows a flush wrote, over all its calls. */
const writtenIds = (written: readonly (PendingEvent<RunEvent>[] | Error)[]): number[] =>
  written.flatMap((w) => (w instanceof Error ? [] : w.map((p) => p.id)));

/**
 * EventStore over the session's pool. Appends made in the same tick share one transaction, in
 * call order, and batches commit one after another, so call order is also commit order (as
 * with SQLite). A row's seq is handed out at its commit (migration 1), so it is read back after.
 */
export function pgEventStore(session: PgSession, writer?: string): EventStore {
  let pending: PendingAppend[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    const batch = pending;
    pending = [];
    flushing = true;
    try {
      // The seqs are read with the COMMIT that hands them out, in its round trip.
      const [written, seqs] = await session.writeThenRead('append events', async (q) => {
        const events = eventStatements(q);
        const now = session.now();
        // Every run of the batch locked once, in id order; the owners read under those locks (which
        // this transaction keeps until it commits) fence each call on its own.
        const owners = await events.lockOwners(runIdsOf(batch.flatMap((b) => b.events)));
        const refusals = batch.map((b) => (writer === undefined ? undefined : fenceRefusal(runIdsOf(b.events), owners, writer)));
        // The calls let through, written in one statement, in call order.
        const rows = await events.insertLocked(batch.flatMap((b, i) => (refusals[i] ? [] : b.events)), now);
        let next = 0;
        return batch.map((b, i): PendingEvent<RunEvent>[] | Error => {
          if (refusals[i]) return refusals[i]!;
          // The rows of this call: those of its events that were written (an end already there is not).
          const own = new Set(b.events);
          const mine: PendingEvent<RunEvent>[] = [];
          while (next < rows.length && own.has(rows[next]!.source)) mine.push(rows[next++]!.pending);
          return mine;
        });
      }, seqsAfterCommit(writtenIds));
      batch.forEach((b, i) => {
        const w = written[i]!;
        if (w instanceof Error) b.reject(w);
        else b.resolve(w.filter((p) => seqs.has(p.id)).map((p) => ({ ...p.event, seq: seqs.get(p.id)! })));
      });
    } catch (err) {
      for (const b of batch) b.reject(err);
    } finally {
      flushing = false;
      if (pending.length > 0) setImmediate(() => void flush());
    }
  }

  return {
    appendEvents: (batch) => {
      if (batch.length === 0) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        if (pending.length === 0 && !flushing) setImmediate(() => void flush());
        pending.push({ events: batch, resolve, reject });
      });
    },

    appendConversationEvents: async (batch) => {
      if (batch.length === 0) return [];
      const written = await session.write('append conversation events', (q) => eventStatements(q).appendConversation(batch, session.now()));
      return withSeqs<StreamEvent>(session, written);
    },

    listRunEvents: (runId) => session.read('read the events of a run', (q) => eventStatements(q).listByRun(runId)),
    listEventsAfter: (afterSeq, limit, filter) => session.read('read new events', (q) => eventStatements(q).listAfter(afterSeq, limit, filter)),
    lastEventSeq: () => session.read('read the last event seq', (q) => eventStatements(q).lastSeq()),
  };
}
