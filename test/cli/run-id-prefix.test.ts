import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Run } from '../../src/store/schemas/run.js';
import { seedRun } from '../api/fixtures.js';
import { listen, makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { runCliInProcess } from './cli-harness.js';

/**
 * `cairn run get` and `cairn run cancel` take a run id prefix of at least 8 characters, resolved
 * against the real API's run list: one match is the run, several are an error listing them.
 */

let home: TempHome;
let t: TestApp;
let url: string;
let runs: Record<'first' | 'second' | 'other', Run>;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
  runs = {
    first: await seedRun(t.store, { id: '0a1b2c3d-1111-4111-8111-111111111111', workflowName: 'first' }),
    second: await seedRun(t.store, { id: '0a1b2c3d-2222-4222-8222-222222222222', workflowName: 'second' }),
    other: await seedRun(t.store, { id: '9f8e7d6c-3333-4333-8333-333333333333', workflowName: 'other' }),
  };
});
afterEach(async () => {
  await home.close();
});

const cli = (...argv: string[]) => runCliInProcess([...argv, '--url', url], { env: { NO_COLOR: '1' } });

describe('a run named by the start of its id', () => {
  it('shows the one run an 8-character prefix matches', async () => {
    const { code, stdout, stderr } = await cli('run', 'get', '9f8e7d6c');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`Run       ${runs.other.id}`);
    expect(stdout).toMatch(/^Workflow\s+other$/m);
  });

  it('matches without regard to case, and with any longer prefix', async () => {
    expect((await cli('run', 'get', '9F8E7D6C')).stdout).toContain(runs.other.id);
    expect((await cli('run', 'get', '0a1b2c3d-2')).stdout).toContain(`Run       ${runs.second.id}`);
  });

  it('refuses a prefix several runs share, listing them (exit 2)', async () => {
    const { code, stdout, stderr } = await cli('run', 'get', '0a1b2c3d');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain("cairn: '0a1b2c3d' is the start of 2 run ids; give more of the id:");
    expect(stderr).toMatch(new RegExp(`^\\s+${runs.first.id}\\s+first\\s+pending`, 'm'));
    expect(stderr).toMatch(new RegExp(`^\\s+${runs.second.id}\\s+second\\s+pending`, 'm'));
  });

  it('refuses a prefix shorter than 8 characters as a usage error', async () => {
    const { code, stderr } = await cli('run', 'get', '9f8e');
    expect(code).toBe(2);
    expect(stderr).toContain("'9f8e' is too short to find a run by: give the whole run id or at least its first 8 characters");
  });

  it('says when no recent run starts with the prefix (exit 1)', async () => {
    const { code, stderr } = await cli('run', 'get', 'deadbeef');
    expect(code).toBe(1);
    expect(stderr).toContain("Workflow run not found: no run id is or starts with 'deadbeef' among the 200 newest runs");
  });

  it('still passes a whole id to the server, which says whether the run exists', async () => {
    const { code, stderr } = await cli('run', 'get', 'deadbeef-0000-4000-8000-000000000000');
    expect(code).toBe(1);
    expect(stderr).toContain('Workflow run not found');
  });

  it('cancels the run a prefix names', async () => {
    const { code, stdout, stderr } = await cli('run', 'cancel', '9f8e7d6c');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Cancel requested for workflow other');
  });
});
