import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger } from '../../src/shared/log.js';
import { isProcessAlive } from '../../src/shared/process-group.js';

/** The test child that speaks the launcher's IPC contract. */
export const ipcChild = fileURLToPath(new URL('./fixtures/ipc-child.mjs', import.meta.url));

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A logger whose lines are kept, parsed, for assertions. */
export function capturingLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    name: 'launcher',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { log, lines };
}

export interface FixtureEntry {
  pid: number;
  event: string;
  port?: string;
  home?: string;
  message?: { type: string; drain?: boolean };
}

/** What the fixture children recorded, one entry per line of their log file. */
export function readFixtureLog(path: string): FixtureEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FixtureEntry);
}

/** True when none of the pids is a live process any more. */
export function allGone(pids: readonly number[]): boolean {
  return pids.every((pid) => !isProcessAlive(pid));
}
