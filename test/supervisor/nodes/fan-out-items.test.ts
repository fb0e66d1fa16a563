import { expect, it } from 'vitest';
import { fanOutInstancesSchema } from '../../../src/records/schemas/fan-out-instances.js';
import { instancesOf, itemText } from '../../../src/supervisor/nodes/child-run/fan-out-items.js';

it('derives each instance identity from its item, not its position: the same item has the same identity anywhere', () => {
  const first = instancesOf(['a', 'b', { k: 1, j: [2] }]);
  const moved = instancesOf(['z', { j: [2], k: 1 }, 'b', 'a']);
  const identityOf = (list: typeof first, item: unknown) => list.find((i) => JSON.stringify(i.item) === JSON.stringify(item))!.identity;
  expect(identityOf(moved, 'a')).toBe(identityOf(first, 'a'));
  expect(identityOf(moved, 'b')).toBe(identityOf(first, 'b'));
  // Key order does not change an object's identity.
  expect(moved[1]!.identity).toBe(first[2]!.identity);
  expect(new Set(first.map((i) => i.identity)).size).toBe(3);
});

it('numbers repeats of an equal item in order, so a list regenerated in the same order keeps every identity', () => {
  const items = ['x', 'y', 'x', 'x'];
  const once = instancesOf(items);
  expect(once.map((i) => i.identity)).toEqual(instancesOf([...items]).map((i) => i.identity));
  expect(once[2]!.identity).toBe(`${once[0]!.identity}~2`);
  expect(once[3]!.identity).toBe(`${once[0]!.identity}~3`);
  // A valid snapshot: ordinals in order, identities unique.
  expect(fanOutInstancesSchema.safeParse(once).success).toBe(true);
});

it('hands a string item over as it is and anything else as JSON (hostile text untouched)', () => {
  expect(itemText("it's \"x\"; $(rm -rf /)\u0000")).toBe("it's \"x\"; $(rm -rf /)\u0000");
  expect(itemText({ a: [1, null] })).toBe('{"a":[1,null]}');
  expect(itemText(7)).toBe('7');
});
