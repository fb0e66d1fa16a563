import type Database from 'better-sqlite3';
import type { NewConversationEvent, NewRunEvent, RunEvent, StreamEvent } from '../schemas/event.js';
import type { EventFilter } from '../events.js';
import { toEvent, toRunEvent } from '../rows.js';
import { runTotalsStatements } from './run-totals-sql.js';

/** Statements for the `events` table. `append` must run inside the caller's transaction. */
export function eventStatements(db: Database.Database) {
  // A second terminal event of one attempt conflicts on the unique index and is not inserted.
  const insert = db.prepare(
    `INSERT INTO events (run_id, conversation_id, event_type, step_name, data, created_at, ends_attempt)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING seq`,
  );
  const byRun = db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq');
  const totals = runTotalsStatements(db);
  const lastSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events');
  const after = {
    all: db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?'),
    conversation: db.prepare(
      'SELECT * FROM events WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    run: db.prepare('SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
  };

  const ownerOf = db.prepare('SELECT id, owner_id FROM workflow_runs WHERE id = ?');
  return {
    /** The owners of the runs that exist among `runIds`. */
    owners(runIds: readonly string[]): { id: string; owner_id: string | null }[] {
      return runIds.flatMap((id) => {
        const row = ownerOf.get(id) as { id: string; owner_id: string | null } | undefined;
        return row ? [row] : [];
      });
    },
    /**
     * Appends in order; an event ending an attempt that already has its end is left out. What
     * the rows written add to their runs' totals (`adds_to_totals`) is folded in the same transaction.
     */
    append(events: readonly NewRunEvent[], now: string): RunEvent[] {
      const written: RunEvent[] = [];
      const adding: Pick<NewRunEvent, 'run_id' | 'adds_to_totals'>[] = [];
      for (const { ends_attempt: endsAttempt, adds_to_totals: adds, ...e } of events) {
        const data = JSON.stringify(e.data);
        const row = insert.get(e.run_id, e.conversation_id, e.event_type, e.step_name, data, now, endsAttempt ?? null) as
          | { seq: number }
          | undefined;
        if (!row) continue;
        written.push({ ...e, seq: row.seq, created_at: now });
        if (adds !== undefined) adding.push({ run_id: e.run_id, adds_to_totals: adds });
      }
      totals.add(adding);
      return written;
    },
    /** Appends a conversation's chat events (no run), in order. */
    appendConversation(events: readonly NewConversationEvent[], now: string): StreamEvent[] {
      return events.map((e) => {
        const row = insert.get(null, e.conversation_id, e.event_type, null, JSON.stringify(e.data), now, null) as { seq: number };
        return { ...e, run_id: null, step_name: null, seq: row.seq, created_at: now };
      });
    },
    listByRun(runId: string): RunEvent[] {
      return byRun.all(runId).map((r) => toRunEvent(r as Record<string, unknown>));
    },
    listAfter(afterSeq: number, limit: number, filter: EventFilter = {}): StreamEvent[] {
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
