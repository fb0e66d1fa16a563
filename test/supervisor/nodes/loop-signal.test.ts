import { expect, it } from 'vitest';
import { hasSignal, stripPromiseTags } from '../../../src/supervisor/nodes/loop-signal.js';

it('finds the signal in <promise> tags in any case, or alone on the last non-empty line', () => {
  expect(hasSignal('work done <promise>DONE</promise> more', 'DONE')).toBe(true);
  expect(hasSignal('<PROMISE> done </Promise>', 'DONE')).toBe(true);
  expect(hasSignal('all good\nDONE\n\n', 'DONE')).toBe(true);
  expect(hasSignal('DONE\nbut then more', 'DONE')).toBe(false);
  expect(hasSignal('NOT DONE', 'DONE')).toBe(false);
  expect(hasSignal('<promise>UNDONE</promise>', 'DONE')).toBe(false);
});

it('removes the <promise> tags and keeps their text', () => {
  expect(stripPromiseTags('ok <promise>DONE</promise>')).toBe('ok DONE');
});
