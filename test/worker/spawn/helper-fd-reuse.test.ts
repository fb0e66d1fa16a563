import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { findExecutable } from '../../../src/worker/spawn/find-executable.js';
import { HelperReplyReader, type HelperReply } from '../../../src/worker/spawn/helper-replies.js';
import { SPAWN_HELPER_PROGRAM } from '../../../src/worker/spawn/spawn-helper-program.js';
import { waitFor } from '../../helpers/wait-for.js';

const perl = findExecutable('perl', process.env.PATH);
const yes = findExecutable('yes', process.env.PATH);

/** A `spawn` request of the helper's protocol: `file` run with `args`, in `/`. */
function spawnRequest(id: string, file: string, args: string[]): string {
  const payload = ['/', file, String(args.length + 1), file, ...args].join('\0');
  return `spawn ${id} ${Buffer.byteLength(payload)}\n${payload}`;
}

/**
 * The helper's protocol spoken directly, so that two requests arrive in one read: the case a
 * worker produces when it releases a child whose output is still readable and launches the next
 * node in the same turn. The released child's stdout descriptor is closed by the release and
 * its number is taken by the new child's stdout pipe; the helper must not read the new pipe on
 * the strength of the old descriptor's readiness (the new child waits at its gate for `go`, so a
 * blocking read there would hang the helper, and every node of its worker thread with it).
 */
describe.runIf(perl && yes)('the spawn helper, when a release and a spawn arrive together', () => {
  it('answers the spawn although the released descriptor was readable in the same turn', async () => {
    const proc = spawn(perl!, ['-e', SPAWN_HELPER_PROGRAM], { stdio: ['pipe', 'pipe', 'inherit'] });
    // Killed, not asked to end: a helper stuck in a read would never see its stdin close.
    onTestFinished(() => {
      proc.kill('SIGKILL');
    });
    const replies: HelperReply[] = [];
    const reader = new HelperReplyReader((reply) => replies.push(reply));
    proc.stdout.on('data', (chunk: Buffer) => reader.push(chunk));

    // A child that writes without end: its stdout descriptor is readable on every turn.
    proc.stdin.write(spawnRequest('1', yes!, []));
    await waitFor(() => replies.some((r) => r.type === 's' && r.id === '1'));
    const firstPid = Number(replies.find((r) => r.type === 's' && r.id === '1')!.arg);
    onTestFinished(() => {
      try {
        process.kill(-firstPid, 'SIGKILL');
      } catch {
        // gone
      }
    });
    proc.stdin.write('go 1\n');
    await waitFor(() => replies.some((r) => r.type === '1' && r.id === '1'));

    // One write, so one read: the release closes child 1's descriptors, the spawn reuses them.
    proc.stdin.write(`release 1\n${spawnRequest('2', yes!, ['second'])}`);
    await waitFor(() => replies.some((r) => r.type === 's' && r.id === '2'), { timeoutMs: 10_000 });
    proc.stdin.write('go 2\n');
    await waitFor(() => replies.some((r) => r.type === '1' && r.id === '2' && r.body!.toString().startsWith('second')));
    const secondPid = Number(replies.find((r) => r.type === 's' && r.id === '2')!.arg);
    process.kill(-secondPid, 'SIGKILL');
    expect(replies.filter((r) => r.type === '1' && r.id === '1').length).toBeGreaterThan(0);
  });
});
