import { expect, it } from 'vitest';
import { fenceRefusal, isFenced, jobFenceRefusal } from '../../../src/store/rules/write-fence.js';

it('lets a supervisor write only to the runs it owns; a deleted run is not fenced (it takes no events anyway)', () => {
  const owners = [{ id: 'r1', owner_id: 'a' }, { id: 'r2', owner_id: 'b' }, { id: 'r3', owner_id: null }];
  expect(fenceRefusal(['r1'], owners, 'a')).toBeUndefined();
  expect(fenceRefusal(['gone'], owners, 'a')).toBeUndefined();
  const taken = fenceRefusal(['r1', 'r2'], owners, 'a');
  expect(isFenced(taken)).toBe(true);
  expect(taken?.message).toContain('Run r2 is owned by supervisor b, not by a');
  expect(fenceRefusal(['r3'], owners, 'a')?.message).toContain('Run r3 is held by no supervisor');
  expect(isFenced(new Error('other'))).toBe(false);
});

it('lets a supervisor queue jobs under a job only while it holds that job claimed', () => {
  expect(jobFenceRefusal(7, { status: 'claimed', lease_owner: 'a' }, 'a')).toBeUndefined();
  const reclaimed = jobFenceRefusal(7, { status: 'claimed', lease_owner: 'b' }, 'a');
  expect(isFenced(reclaimed)).toBe(true);
  expect(reclaimed?.message).toContain('Job 7 is held by supervisor b, not by a');
  expect(jobFenceRefusal(7, { status: 'done', lease_owner: 'a' }, 'a')?.message).toContain('Job 7 is done, held by no supervisor, not by a');
  expect(jobFenceRefusal(7, undefined, 'a')?.message).toContain('Job 7 is gone, held by no supervisor');
});
