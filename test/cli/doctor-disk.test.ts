import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { mountSmallDisk, smallDisksAvailable } from '../helpers/small-disk.js';
import { assertBuilt } from './cli-process.js';
import { lineOf, makeDoctorBench, type DoctorBench } from './doctor-bench.js';

/**
 * The disk-space line on real small disks (tmpfs mounts, so root only, like the other full-disk
 * tests): under 1 GiB free is a warning, under 100 MiB a failure, and the line names the folder.
 */

let bench: DoctorBench;
beforeAll(assertBuilt);
beforeEach(async () => {
  bench = await makeDoctorBench();
});
afterEach(async () => {
  await bench.home.close();
});

it.skipIf(!smallDisksAvailable).each([
  { sizeMb: 512, status: 'warn', text: 'under 1 GiB. Next: free space on the disk that holds' },
  { sizeMb: 64, status: 'FAILED', text: 'under 100 MiB, runs wait for space and the server may stop taking writes. Next: free space on the disk that holds' },
])('a home on a $sizeMb MB disk: $status', async ({ sizeMb, status, text }) => {
  const home = join(bench.home.home, 'small');
  mountSmallDisk(bench.home, home, sizeMb);
  await bench.fake('claude', '2.1.100 (Claude Code)');
  const res = await bench.doctor([], { ...(await bench.packagedFakes()), CAIRN_HOME: home });
  expect(res.code).toBe(status === 'FAILED' ? 1 : 0);
  const line = lineOf(res.stdout, 'disk space');
  expect(line.status).toBe(status);
  expect(line.text).toMatch(new RegExp(`^${sizeMb} MiB free for ${home}: `));
  expect(line.text).toContain(`${text} ${home}`);
});
