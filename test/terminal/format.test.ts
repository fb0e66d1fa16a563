import { describe, expect, it } from 'vitest';
import { isColorWanted } from '../../src/terminal/context.js';
import { createStyle, firstLine, formatDuration, formatTable } from '../../src/terminal/format.js';

describe('human output', () => {
  it('formats durations for people', () => {
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(12_340)).toBe('12.3s');
    expect(formatDuration(245_000)).toBe('4m 05s');
    expect(formatDuration(7_380_000)).toBe('2h 03m');
  });

  it('aligns table columns on visible text, ignoring colour codes', () => {
    const style = createStyle(true);
    const lines = formatTable(['ID', 'STATUS', 'ERROR'], [['a', style.red('failed'), 'boom'], ['bbbb', 'ok', '']]);
    const plain = lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, ''));
    expect(plain).toEqual(['ID    STATUS  ERROR', 'a     failed  boom', 'bbbb  ok']);
  });

  it('uses colour only on a terminal and never with NO_COLOR', () => {
    expect(isColorWanted({ write: () => true, isTTY: true }, {})).toBe(true);
    expect(isColorWanted({ write: () => true, isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(isColorWanted({ write: () => true, isTTY: false }, {})).toBe(false);
    expect(createStyle(false).red('x')).toBe('x');
  });

  it('keeps the first line of a long error', () => {
    expect(firstLine('line one\nline two')).toBe('line one');
    expect(firstLine('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
