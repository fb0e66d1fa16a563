import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { parseYamlData } from '../src/workflow/loading/yaml-data.js';
import { fanOutYaml } from '../test/helpers/workflows.js';

/**
 * `npx tsx bench/yaml-parsers.ts [rounds]`: the workflow loader's YAML parse as it is
 * (`parseYamlData`: js-yaml where it reads exactly as `yaml` would, `yaml` otherwise) against
 * the `yaml` library alone, as `parseYamlData` calls it. Prints a markdown table.
 *
 * Inputs: every workflow file the loader tests read, as two sets: real workflows (the bundled
 * set and the upstream corpus in test/fixtures/corpus) and the test fixtures (small documents,
 * some broken on purpose); and generated fan-outs of 1,000 and 10,000 nodes (the scale bench's
 * workflows). The catalog thread keeps each file's parse until the file changes, so what a user
 * waits for is the first parse of a file in a process: "cold" is that, measured in a fresh Node
 * process per parser and input (nothing compiled or warmed by the other parser). "warm" is the
 * median of repeated parses in the same process: a long-running server's steady cost on a
 * changed file. Both are CPU milliseconds of the parsing process (so other work on the machine
 * does not count). Peak RSS is the fresh process's, after its cold and warm parses.
 */

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const parsers = {
  current: (text: string) => parseYamlData(text),
  'yaml alone': (text: string) => parse(text, { prettyErrors: true, logLevel: 'error' }),
} as const;
type ParserName = keyof typeof parsers;

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** The texts of an input, by name. */
function inputTexts(input: string): string[] {
  const read = (dirs: string[]) => dirs.flatMap((d) => yamlFilesUnder(join(repoRoot, d))).map((f) => readFileSync(f, 'utf8'));
  if (input === 'real workflows') return read(['workflows', 'test/fixtures/corpus']);
  if (input === 'test fixtures') return read(['test/fixtures/workflows']);
  const nodes = Number(/^fan-out-(\d+)$/.exec(input)?.[1]);
  return [fanOutYaml('fan-out', nodes, 'true')];
}

interface Sample {
  coldMs: number;
  warmMs: number;
  rssMiB: number;
}

/** In a fresh process: one cold pass over the input's texts, then the median of warm passes. */
function measureHere(parser: ParserName, input: string): Sample {
  const texts = inputTexts(input);
  const parseOne = parsers[parser];
  // CPU time (user + system, every thread of the process), not wall time: on a machine shared
  // with other work, waiting for a core is not the parser's cost.
  const pass = () => {
    const t0 = process.cpuUsage();
    for (const text of texts) {
      try {
        parseOne(text);
      } catch {
        // A fixture that is meant to fail still costs its parse.
      }
    }
    const { user, system } = process.cpuUsage(t0);
    return (user + system) / 1000;
  };
  const coldMs = pass();
  const passes = input === 'fan-out-10000' ? 7 : 25;
  const warm = Array.from({ length: passes }, pass).sort((a, b) => a - b);
  return { coldMs, warmMs: warm[Math.floor(warm.length / 2)]!, rssMiB: process.resourceUsage().maxRSS / 1024 };
}

function measureFresh(parser: ParserName, input: string): Sample {
  const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--one', parser, input], { encoding: 'utf8' });
  return JSON.parse(out) as Sample;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function main(): void {
  if (process.argv[2] === '--one') {
    process.stdout.write(JSON.stringify(measureHere(process.argv[3] as ParserName, process.argv[4]!)));
    return;
  }
  const rounds = Number(process.argv[2] ?? 5);
  const inputs = ['real workflows', 'test fixtures', 'fan-out-1000', 'fan-out-10000'];
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; median of ${rounds} fresh processes per cell\n`);
  console.log('| input | size | parser | cold, CPU ms | warm, CPU ms | peak RSS MiB |');
  console.log('|---|---:|---|---:|---:|---:|');
  for (const input of inputs) {
    const texts = inputTexts(input);
    const kib = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1024;
    const size = `${texts.length} file${texts.length === 1 ? '' : 's'}, ${kib.toFixed(0)} KiB`;
    const samples: Record<ParserName, Sample[]> = { current: [], 'yaml alone': [] };
    // Interleaved, so a change in the machine's load falls on both parsers alike.
    for (let round = 0; round < rounds; round++) for (const parser of Object.keys(parsers) as ParserName[]) samples[parser].push(measureFresh(parser, input));
    for (const parser of Object.keys(parsers) as ParserName[]) {
      const s = samples[parser];
      const cell = (pick: (x: Sample) => number, digits: number) => median(s.map(pick)).toFixed(digits);
      console.log(`| ${input} | ${size} | ${parser} | ${cell((x) => x.coldMs, 1)} | ${cell((x) => x.warmMs, 2)} | ${cell((x) => x.rssMiB, 0)} |`);
    }
  }
}

main();
