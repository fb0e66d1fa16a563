import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attemptEndedEvent, attemptStartedEvent, type AttemptRef } from '../../src/records/index.js';
import { createLogger, type Logger } from '../../src/shared/log.js';
import { sqliteStoreConfig, type Store } from '../../src/store/open-store.js';
import type { RunEvent } from '../../src/store/schemas/event.js';
import type { Run } from '../../src/store/schemas/run.js';
import { AttemptCloser, attemptCloser } from '../../src/worker/attempt-closer.js';
import { workerKindTable } from '../../src/worker/nodes/worker-kinds.js';
import { createWorkerPool } from '../../src/worker/pool/pool.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { bundleThreadEntry } from '../helpers/thread-bundle.js';
import { newRun } from '../store/fixtures.js';
import { dieWorkerKind } from './close-race/worker-kind.js';

/**
 * One owner closes an attempt (worker/attempt-closer.ts): whoever saw the attempt end (its thread,
 * the pool, a supervisor-side handler, a take-over) asks it, the first close wins, and a later one
 * writes nothing and is logged. Real SQLite in a temp dir; the thread that dies mid-close is a real
 * Piscina thread of the real pool.
 */

const threadTask = fileURLToPath(new URL('./close-race/thread-task.ts', import.meta.url));

let home: TempHome;
let store: Store;
let run: Run;

beforeEach(async () => {
  home = await makeTempHome();
  store = home.openStore();
  run = await store.createRun(newRun());
});
afterEach(async () => {
  await home.close();
});

/** A logger whose lines the test reads. */
function capturedLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger({ name: 'test', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } }) };
}

function refOf(path = 'build'): AttemptRef {
  const startedAt = new Date().toISOString();
  return {
    runId: run.id,
    conversationId: run.conversation_id,
    path,
    node: { id: path, kind: 'exec', runtime: 'sh' },
    invocation: { id: randomUUID(), startedAt, loopPath: [] },
    attemptId: randomUUID(),
    startedAt,
  };
}

async function endsOf(path: string): Promise<RunEvent[]> {
  return (await store.listRunEvents(run.id)).filter((e) => e.step_name === path && (e.event_type === 'node_completed' || e.event_type === 'node_failed'));
}

const ignoredLines = (lines: Record<string, unknown>[]) => lines.filter((l) => l.msg === 'attempt.close_ignored');

describe('the attempt closer', () => {
  it('closes an attempt once: a second close writes nothing and is logged with who asked and what it saw', async () => {
    const { log, lines } = capturedLog();
    const closer = new AttemptCloser(store, log);
    const ref = refOf();
    await store.appendEvents([attemptStartedEvent(ref)]);
    const completed = attemptEndedEvent(ref, { status: 'completed', output: { text: 'ok' } }, 5);
    const failed = attemptEndedEvent(ref, { status: 'failed', error: 'the thread ended', failureKind: 'transient' });

    expect(await closer.close('thread', [completed])).toBe('closed');
    expect(await closer.close('pool', [failed])).toBe('already_closed');

    const ends = await endsOf('build');
    expect(ends.map((e) => e.event_type)).toEqual(['node_completed']);
    expect(ignoredLines(lines)).toEqual([
      expect.objectContaining({ attemptId: ref.attemptId, by: 'pool', outcome: 'node_failed', closedBy: 'thread' }),
    ]);
  });

  it('lets the first of two closes asked at the same moment win, and writes once', async () => {
    const { log, lines } = capturedLog();
    const closer = new AttemptCloser(store, log);
    const ref = refOf();
    const answers = await Promise.all([
      closer.close('thread', [attemptStartedEvent(ref), attemptEndedEvent(ref, { status: 'completed', output: { text: 'ok' } }, 1)]),
      closer.close('handler', [attemptEndedEvent(ref, { status: 'failed', error: 'the attempt failed in its worker', failureKind: 'transient' })]),
    ]);
    expect(answers).toEqual(['closed', 'already_closed']);
    expect((await endsOf('build')).map((e) => e.event_type)).toEqual(['node_completed']);
    expect(ignoredLines(lines)).toHaveLength(1);
  });

  it('refuses a dead supervisor thread’s close after the take-over closed its attempt, from another process’s handle', async () => {
    const ref = refOf();
    const other = refOf('lint');
    await store.appendEvents([attemptStartedEvent(ref), attemptStartedEvent(other)]);
    // The take-over's supervisor closes what it found in flight, in one write.
    const takeover = capturedLog();
    const interrupted = (r: AttemptRef) => attemptEndedEvent(r, { status: 'failed', error: 'Attempt interrupted: supervisor gone', failureKind: 'transient', interrupted: true });
    expect(await new AttemptCloser(store, takeover.log).closeAll('takeover', [interrupted(ref), interrupted(other)])).toEqual(['closed', 'closed']);

    // The old supervisor's thread answers late, through its own handle on the same database.
    const late = capturedLog();
    const threadStore = home.openStore();
    const answer = await new AttemptCloser(threadStore, late.log).close('thread', [attemptEndedEvent(ref, { status: 'completed', output: { text: 'ok' } }, 9)]);
    expect(answer).toBe('already_closed');
    const ends = await endsOf('build');
    expect(ends).toHaveLength(1);
    expect(ends[0]!.event_type).toBe('node_failed');
    expect(ignoredLines(late.lines)).toEqual([
      expect.objectContaining({ attemptId: ref.attemptId, by: 'thread', outcome: 'node_completed', closedBy: 'another writer' }),
    ]);
    // A take-over asked again (its scheduler restarted) closes nothing twice.
    expect(await new AttemptCloser(store, takeover.log).closeAll('takeover', [interrupted(ref)])).toEqual(['already_closed']);
    expect(await endsOf('build')).toHaveLength(1);
  });

  it('is one owner per store handle: the pool, the handlers and take-overs on one supervisor ask the same one', () => {
    expect(attemptCloser(store)).toBe(attemptCloser(store));
    expect(attemptCloser(home.openStore())).not.toBe(attemptCloser(store));
  });
});

describe('a thread that dies mid-close', () => {
  let threadEntry: string;
  beforeAll(async () => {
    const bundle = await bundleThreadEntry(threadTask);
    threadEntry = bundle.file;
    return bundle.remove;
  });

  async function runDying(when: 'after-close' | 'before-close') {
    const { log, lines } = capturedLog();
    const pool = createWorkerPool({ store, maxThreads: 1, concurrentTasksPerWorker: 1, filename: threadEntry, kinds: workerKindTable([dieWorkerKind]), log });
    home.defer(() => pool.close());
    const path = `die-${when}`;
    const result = await pool.runAttempt({
      kind: 'die',
      when,
      node: { id: path, kind: 'exec', runtime: 'sh' },
      store: sqliteStoreConfig(home.paths.database),
      runId: run.id,
      conversationId: run.conversation_id,
      path,
      nodeId: path,
      invocation: { id: randomUUID(), startedAt: new Date().toISOString(), loopPath: [] },
      attempt: { id: randomUUID(), number: 1 },
      cwd: home.home,
      killGraceMs: 100,
    } as Parameters<typeof pool.runAttempt>[0]);
    return { result, ends: await endsOf(path), ignored: ignoredLines(lines) };
  }

  it('keeps the thread’s close when it committed before the thread ended: the pool’s is a logged no-op, and the pool answers what was recorded', async () => {
    const { result, ends, ignored } = await runDying('after-close');
    // Not the pool's guess (a transient failure), which the scheduler would retry: the node ran once and completed.
    expect(result).toMatchObject({ status: 'completed', output: 'done' });
    expect(ends.map((e) => e.event_type)).toEqual(['node_completed']);
    expect(ignored).toEqual([expect.objectContaining({ by: 'pool', outcome: 'node_failed', closedBy: 'another writer' })]);
  });

  it('closes the attempt from the pool when the thread ended before it could', async () => {
    const { result, ends, ignored } = await runDying('before-close');
    expect(result).toMatchObject({ status: 'failed', failureKind: 'transient' });
    expect(ends.map((e) => e.event_type)).toEqual(['node_failed']);
    expect(ignored).toEqual([]);
  });
});
