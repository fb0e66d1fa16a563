import type Database from 'better-sqlite3';
import type { NewRunEvent, RunEvent } from '../schemas/event.js';
import type { EventFilter } from '../events.js';
import { toEvent } from './rows.js';

/** Statements for the `events` table. `append` must run inside the caller's transaction. */
export function eventStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO events (run_id, conversation_id, event_type, step_name, data, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING seq`,
  );
  const byRun = db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq');
  const lastSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events');
  const after = {
    all: db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?'),
    conversation: db.prepare(
      'SELECT * FROM events WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    run: db.prepare('SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
  };

  return {
    append(events: readonly NewRunEvent[], now: string): RunEvent[] {
      return events.map((e) => {
        const data = JSON.stringify(e.data);
        const row = insert.get(e.run_id, e.conversation_id, e.event_type, e.step_name, data, now) as {
          seq: number;
        };
        return { ...e, seq: row.seq, created_at: now };
      });
    },
    listByRun(runId: string): RunEvent[] {
      return byRun.all(runId).map((r) => toEvent(r as Record<string, unknown>));
    },
    listAfter(afterSeq: number, limit: number, filter: EventFilter = {}): RunEvent[] {
      const rows = filter.runId
        ? after.run.all(filter.runId, afterSeq, limit)
        : filter.conversationId
          ? after.conversation.all(filter.conversationId, afterSeq, limit)
          : after.all.all(afterSeq, limit);
      const events = rows.map((r) => toEvent(r as Record<string, unknown>));
      return filter.runId && filter.conversationId
        ? events.filter((e) => e.conversation_id === filter.conversationId)
        : events;
    },
    lastSeq(): number {
      return (lastSeq.get() as { seq: number }).seq;
    },
  };
}
