import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/log.js';

/** Issue 10: a run's logger (a child bound to runId) never writes runId twice on one line. */

function capture() {
  const lines: string[] = [];
  const log = createLogger({ name: 'supervisor', level: 'info', destination: { write: (line: string) => lines.push(line) } });
  return { log, lines };
}

describe('log fields', () => {
  it('drops a key the child logger already binds with the same value', () => {
    const { log, lines } = capture();
    log.child({ runId: 'r1' }).info({ runId: 'r1', status: 'failed', error: 'node x failed' }, 'run.finished');
    expect(lines[0]!.match(/"runId"/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ runId: 'r1', status: 'failed', error: 'node x failed', msg: 'run.finished' });
  });

  it('keeps a key whose value differs from the binding, and plain calls unchanged', () => {
    const { log, lines } = capture();
    log.child({ runId: 'r1' }).info({ runId: 'r2' }, 'other');
    log.info('plain');
    log.error(new Error('boom'), 'failed');
    expect(lines[0]).toContain('"runId":"r2"');
    expect(JSON.parse(lines[1]!)).toMatchObject({ msg: 'plain' });
    expect(JSON.parse(lines[2]!)).toMatchObject({ msg: 'failed', err: { message: 'boom' } });
  });
});
