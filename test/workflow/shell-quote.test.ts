import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/workflow/shell-quote.js';

/** What a real POSIX shell assigns when given `x=<word>`. */
function assigned(word: string): string {
  const run = spawnSync('sh', ['-c', `x=${word}; printf '%s' "$x"`], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  return run.stdout;
}

describe('shellQuote', () => {
  it.each([
    'plain',
    '',
    "it's",
    "''",
    '$(touch /tmp/cairn-never-created) `id` $HOME ${PATH}',
    'line one\nline two\n',
    '{"status":"ok","value":42}',
    "a'b\"c\\d;e|f&g>h<i*j?k[l]m",
  ])('makes %j one word that a shell reads back unchanged', (value) => {
    expect(assigned(shellQuote(value))).toBe(value);
  });
});
