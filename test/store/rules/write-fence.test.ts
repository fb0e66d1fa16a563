import { expect, it } from 'vitest';
import { fenceRefusal, isFenced } from '../../../src/store/rules/write-fence.js';

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
