import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claimServerFile,
  readPidFile,
  readServerFile,
  removeRunFiles,
  serverFilePath,
  writePidFile,
} from '../../src/launcher/run-dir.js';
import { homePaths, type HomePaths } from '../../src/shared/paths.js';

let paths: HomePaths;

beforeEach(async () => {
  paths = homePaths(await mkdtemp(join(tmpdir(), 'cairn-rundir-')));
});
afterEach(async () => {
  await rm(paths.home, { recursive: true, force: true });
});

const file = (pid: number, port = 3090) => ({ url: `http://127.0.0.1:${port}`, pid, startedAt: '2025-01-01T00:00:00.000Z' });

describe('server.json', () => {
  it('is claimed by the first launcher and refused to a second while the first is alive', () => {
    // The test runner's parent process stands in for "another live launcher".
    expect(claimServerFile(paths, file(process.ppid))).toEqual({ claimed: true });
    expect(claimServerFile(paths, file(process.pid, 4000))).toEqual({ claimed: false, holder: file(process.ppid) });
    expect(readServerFile(paths)).toEqual(file(process.ppid));
  });

  it('is taken over from a launcher that died without cleaning up', () => {
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
    claimServerFile(paths, file(dead));
    expect(claimServerFile(paths, file(process.pid, 4000))).toEqual({ claimed: true });
    expect(readServerFile(paths)?.url).toBe('http://127.0.0.1:4000');
  });

  it('leaves no temp file behind', () => {
    claimServerFile(paths, file(process.pid));
    expect(existsSync(`${serverFilePath(paths)}.${process.pid}.tmp`)).toBe(false);
  });
});

describe('pid files', () => {
  it('are written, rewritten, read back and removed with the server file', () => {
    writePidFile(paths.apiPid, 1234);
    writePidFile(paths.apiPid, 5678);
    writePidFile(paths.supervisorPid, 91);
    claimServerFile(paths, file(process.pid));
    expect(readPidFile(paths.apiPid)).toBe(5678);
    expect(readPidFile(paths.supervisorPid)).toBe(91);
    removeRunFiles(paths);
    expect(existsSync(paths.apiPid) || existsSync(paths.supervisorPid) || existsSync(serverFilePath(paths))).toBe(false);
    removeRunFiles(paths);
  });
});
