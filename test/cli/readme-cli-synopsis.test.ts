import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runCliInProcess } from './cli-harness.js';

/**
 * The README's CLI synopsis names only commands that exist: every `cairn <words>` it shows
 * (alternatives written `a|b` and the `and:` / `or:` comments included) answers `--help` with 0.
 */

const checkout = fileURLToPath(new URL('../../', import.meta.url));

function synopsisCommands(): string[][] {
  const readme = readFileSync(join(checkout, 'README.md'), 'utf8');
  const block = readme.split('## The CLI')[1]?.match(/```sh\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error('the README lost its CLI synopsis');
  const commands: string[][] = [];
  const isWord = (w: string | undefined): w is string => w !== undefined && /^[a-z][a-z|-]*$/.test(w);
  for (const line of block.split('\n').filter(Boolean)) {
    const [code, comment = ''] = line.split(/\s+#\s+/);
    const [, group, sub] = code!.trim().split(/\s+/);
    if (!isWord(group)) continue;
    for (const alt of isWord(sub) ? sub.split('|') : [undefined]) commands.push(alt ? [group, alt] : [group]);
    // `# and: codebase list | allow-env <id> ...`, `# or: cairn run reject <id> ...`
    const more = /(?:and|or):\s*(?:cairn\s+)?(.*)$/.exec(comment)?.[1];
    for (const alt of more ? more.split('|') : []) {
      const words = alt.trim().split(/\s+/).filter((w) => isWord(w));
      const named = words[0] === group ? words[1] : words[0];
      if (named) commands.push([group, named]);
    }
  }
  return commands;
}

it('every command of the README synopsis exists', async () => {
  const commands = synopsisCommands();
  expect(commands.length).toBeGreaterThan(12);
  for (const words of commands) {
    if (words[0] === '--version') continue;
    const result = await runCliInProcess([...words, '--help']);
    expect(result.code, `cairn ${words.join(' ')} --help`).toBe(0);
    expect(result.stdout, `cairn ${words.join(' ')} --help`).toMatch(/^Usage: cairn /);
  }
});
