import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/log.js';
import { LogDestination } from '../../src/shared/log-destination.js';
import { mountSmallDisk, smallDisksAvailable } from '../helpers/small-disk.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The two ways a log write could stop a process: a file on a real 1 MB disk (a tmpfs, mounted as
 * root) that fills up under the logger, and a pipe whose reader stops reading.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

describe.skipIf(!smallDisksAvailable)('LogDestination on a full disk', () => {
  it('holds the lines the disk refuses, drops and counts those past its limit, and logs the count once lines flow again', async () => {
    const disk = mountSmallDisk(home, join(home.home, 'disk'), 1);
    const path = join(disk.dir, 'out.log');
    const fd = openSync(path, 'a');
    home.defer(() => closeSync(fd));
    // 1 KB held at most: about a dozen of pino's lines; the disk is tried again every 50 ms.
    const log = createLogger({ name: 't', destination: new LogDestination(fd, { maxHeldBytes: 1024, retryAfterErrorMs: 50 }) });
    const lines = () =>
      readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { msg: string; dropped?: number });

    log.info('before');
    await disk.fill({ topUp: [path] });
    // Nothing throws and nothing waits: each call returns at once, whatever the disk says.
    for (let i = 0; i < 20; i++) log.info(`line-${String(i).padStart(2, '0')}`);
    expect(lines().map((l) => l.msg)).toEqual(['before']);

    await disk.free();
    const written = await waitFor(() => {
      const all = lines();
      return all.some((l) => l.msg === 'log.lines_dropped') ? all : undefined;
    }, { what: 'the held lines and the drop count to be written' });
    // The held lines come first and in order, then the count of those that did not fit.
    const held = Array.from({ length: 20 }, (_, i) => `line-${String(i).padStart(2, '0')}`).slice(0, written.length - 2);
    expect(written.map((l) => l.msg)).toEqual(['before', ...held, 'log.lines_dropped']);
    expect(written.at(-1)!.dropped).toBe(20 - held.length);
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThan(20);
  });
});

describe('LogDestination on a pipe nobody reads', () => {
  it('never waits for the reader: lines queue behind the pipe and arrive whole and in order once it reads', async () => {
    const fifo = `${home.home}/log.fifo`;
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, 'w');
    home.defer(() => {
      closeSync(writer);
      closeSync(reader);
    });
    const log = createLogger({ name: 't', destination: new LogDestination(writer) });
    // Far more than a pipe holds (64 KiB): a synchronous write would block right here, for good.
    const count = 2_000;
    for (let i = 0; i < count; i++) log.info({ i, pad: 'x'.repeat(100) }, 'line');
    // The event loop still turns while the reader does nothing.
    await new Promise((resolve) => setImmediate(resolve));

    let text = '';
    const chunk = Buffer.alloc(64 * 1024);
    await waitFor(() => {
      for (;;) {
        let n = 0;
        try {
          n = readSync(reader, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
        }
        if (n <= 0) break;
        text += chunk.subarray(0, n).toString();
      }
      return text.split('\n').length > count;
    }, { what: 'every line to come through the pipe' });
    expect(text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(Array.from({ length: count }, (_, i) => i));
  });
});
