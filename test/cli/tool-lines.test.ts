import { expect, it } from 'vitest';
import { summariseToolInput } from '../../src/cli/tool-lines.js';

it('summarises a tool call\'s input by its most telling field, on one line, at most 80 characters', () => {
  expect(summariseToolInput(JSON.stringify({ description: 'list', command: 'ls -la\n  src' }))).toBe('ls -la src');
  expect(summariseToolInput(JSON.stringify({ file_path: '/p/notes.txt', limit: 5 }))).toBe('/p/notes.txt');
  expect(summariseToolInput(JSON.stringify({ other: 'x' }))).toBe('x');
  expect(summariseToolInput(JSON.stringify({ n: 1 }))).toBe('{"n":1}');
  expect(summariseToolInput('not json, cut…')).toBe('not json, cut…');
  const long = summariseToolInput(JSON.stringify({ command: 'y'.repeat(200) }));
  expect(long).toHaveLength(80);
  expect(long.endsWith('…')).toBe(true);
});
