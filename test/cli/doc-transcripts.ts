import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The terminal transcripts of docs/cli.md (```-blocks whose first line is `$ cairn ...`), for tests
 * that run the commands and compare what they print. Run ids, attempt ids and durations differ
 * from run to run: `normalise` writes them as the docs do.
 */

export interface TranscriptStep {
  /** The command line after `$ `. */
  command: string;
  /** What it printed, as lines. */
  output: string[];
}

/** The transcript under `## <section>` whose first command starts with `first`. */
export function docTranscript(section: string, first: string): TranscriptStep[] {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8');
  const body = doc.split(`\n## ${section}\n`)[1]?.split('\n## ')[0];
  if (body === undefined) throw new Error(`docs/cli.md has no section '## ${section}'`);
  for (const block of body.matchAll(/```\n([\s\S]*?)```/g)) {
    const lines = block[1]!.replace(/\n$/, '').split('\n');
    if (!lines[0]!.startsWith(`$ ${first}`)) continue;
    const steps: TranscriptStep[] = [];
    for (const line of lines) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
      else steps.at(-1)!.output.push(line);
    }
    return steps;
  }
  throw new Error(`docs/cli.md '## ${section}' has no transcript starting '$ ${first}'`);
}

/**
 * Output as the docs write it: the run id `7f3c…`, other ids given in `ids` by what they stand
 * for, attempt ids `(attempt 00000000)`, durations `5ms`, and paths in `paths` by theirs.
 */
export function normalise(text: string, runId: string, paths: Record<string, string> = {}): string[] {
  let out = text.replaceAll(runId, '7f3c…');
  for (const [path, shown] of Object.entries(paths)) out = out.replaceAll(path, shown);
  out = out
    .replace(/\(attempt [0-9a-f]{8}\)/g, '(attempt 00000000)')
    .replace(/\((?:\d+m )?\d+(?:\.\d+)?(?:ms|s|m)\)/g, '(5ms)')
    .replace(/ completed in .+\.$/gm, ' completed in 5ms.');
  return out.replace(/\n$/, '').split('\n');
}

/** A transcript's output lines with its attempt ids and durations written as `normalise` writes them. */
export function docLines(step: TranscriptStep): string[] {
  return normalise(step.output.join('\n'), '7f3c…');
}
