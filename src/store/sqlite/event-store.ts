import type { NewRunEvent, RunEvent } from '../schemas/event.js';
import type { EventStore } from '../events.js';
import { eventStatements } from './events-sql.js';
import type { SqliteSession } from './session.js';
import { fenceRefusal } from '../rules/write-fence.js';

interface PendingAppend {
  events: readonly NewRunEvent[];
  resolve: (rows: RunEvent[]) => void;
  reject: (err: unknown) => void;
}

/**
 * EventStore over the session's connection. Appends made in the same tick share one
 * transaction (a worker thread running eight attempts writes their starts and ends together),
 * in call order; each call resolves with its own rows once the batch has committed. Batches
 * commit one after another: while one waits for a busy database, later appends gather into the
 * next, so call order is also commit order.
 */
export function sqliteEventStore(session: SqliteSession, writer?: string): EventStore {
  const events = eventStatements(session.db);
  let pending: PendingAppend[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    const batch = pending;
    pending = [];
    flushing = true;
    try {
      const written = await session.write('append events', () => {
        const now = session.now();
        return batch.map((b) => {
          // Fenced: the owners are read inside the write transaction (SQLite has one writer at a time).
          const runIds = [...new Set(b.events.map((e) => e.run_id))];
          const refused = writer === undefined ? undefined : fenceRefusal(runIds, events.owners(runIds), writer);
          return refused ?? events.append(b.events, now);
        });
      });
      batch.forEach((b, i) => {
        const w = written[i]!;
        if (w instanceof Error) b.reject(w);
        else b.resolve(w);
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

    appendConversationEvents: (batch) =>
      batch.length === 0
        ? Promise.resolve([])
        : session.write('append conversation events', () => events.appendConversation(batch, session.now())),

    listRunEvents: (runId) => session.read('read the events of a run', () => events.listByRun(runId)),

    listEventsAfter: (afterSeq, limit, filter) =>
      session.read('read new events', () => events.listAfter(afterSeq, limit, filter)),

    lastEventSeq: () => session.read('read the last event seq', () => events.lastSeq()),
  };
}
