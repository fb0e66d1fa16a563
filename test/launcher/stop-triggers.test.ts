import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isStartedByNpmScript, listenForStop, type StopTrigger } from '../../src/launcher/stop-triggers.js';
import { tsxImport } from '../helpers/built-files.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * What stops `cairn serve`: real signals to a real process that listens the way the launcher
 * does, and the parent watch that `npm start` relies on (its real reparenting is exercised end
 * to end by npm-start.test.ts; here the parent pid is read through a function).
 */

const fixture = fileURLToPath(new URL('./fixtures/stop-triggers-child.mjs', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A process listening for stop triggers; `lines()` is what it reported, parsed. */
async function listener(coalesceMs: number) {
  let out = '';
  const child = spawn(process.execPath, [...tsxImport, fixture, String(coalesceMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.startsWith('ready\n'), { what: 'the listener to be ready' });
  const lines = () =>
    out
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => JSON.parse(line) as StopTrigger);
  const signal = async (name: NodeJS.Signals, expectedLines: number) => {
    child.kill(name);
    await waitFor(() => lines().length >= expectedLines, { what: `${name} to be reported` });
  };
  return { lines, signal };
}

describe('stop triggers', () => {
  it('reports every SIGINT and SIGTERM when repeats are not coalesced', async () => {
    const l = await listener(0);
    await l.signal('SIGINT', 1);
    await l.signal('SIGINT', 2);
    await l.signal('SIGTERM', 3);
    expect(l.lines()).toEqual([
      { kind: 'signal', signal: 'SIGINT' },
      { kind: 'signal', signal: 'SIGINT' },
      { kind: 'signal', signal: 'SIGTERM' },
    ]);
  });

  it("counts a signal repeated within the window once (npm's echo of a terminal Ctrl-C)", async () => {
    const l = await listener(10 * 60_000);
    await l.signal('SIGINT', 1);
    // The second SIGINT is swallowed; the SIGTERM sent after it is reported, so it was delivered.
    await l.signal('SIGINT', 1);
    await l.signal('SIGTERM', 2);
    expect(l.lines()).toEqual([
      { kind: 'signal', signal: 'SIGINT' },
      { kind: 'signal', signal: 'SIGTERM' },
    ]);
  });

  it('reports the parent exiting once, when watching it, and removes every trigger when done', async () => {
    let parentPid = 4242;
    const triggers: StopTrigger[] = [];
    const before = process.listenerCount('SIGTERM');
    const stop = listenForStop((t) => triggers.push(t), { watchParent: true, pollMs: 5, readParentPid: () => parentPid });
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    parentPid = 1;
    await waitFor(() => triggers.length > 0, { what: 'the parent exit to be noticed' });
    stop();
    expect(triggers).toEqual([{ kind: 'parent_exited', parentPid: 4242 }]);
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  it('watches the parent only under an npm script', () => {
    expect(isStartedByNpmScript({ npm_lifecycle_event: 'start' })).toBe(true);
    expect(isStartedByNpmScript({})).toBe(false);
    expect(isStartedByNpmScript({ npm_lifecycle_event: '' })).toBe(false);
  });
});
