import type { SeededRandom } from './seeded-random.js';

/**
 * The workflows `cairn stress` writes and runs. Each run gets a workflow of its own (seeded
 * sleeps differ), made of a `start` node, bash fan-outs and a chain, the features below by
 * rotation (so every feature runs even at a small size), and an `end` node that reads them all.
 * Every node must succeed exactly once: nothing here fails on purpose.
 */

/** What a run's workflow may hold beyond its bash nodes. */
export const stressFeatures = ['gate', 'wait', 'child', 'fanout', 'ai'] as const;
export type StressFeature = (typeof stressFeatures)[number];

/** The child workflow of `child` (a child run) and `fanout` (in-run instances): two bash nodes. */
export const LEAF_WORKFLOW = 'stress-leaf';
const LEAF_PATHS = ['a', 'b'];
/** The items of the in-run fan-out. */
const FAN_OUT_ITEMS = ['x', 'y'];
/** The smallest `--nodes`: start, end and room for two features. */
export const MIN_NODES = 4;

export interface StressWorkflow {
  name: string;
  yaml: string;
}

export interface PlannedRun {
  index: number;
  workflow: string;
  features: StressFeature[];
}

export interface StressPlan {
  workflows: StressWorkflow[];
  runs: PlannedRun[];
  /** Every node path a completed run of each workflow records as completed, by workflow name. */
  expectedPaths: Record<string, string[]>;
}

interface Node {
  id: string;
  lines: string[];
  dependsOn: string[];
}

const bash = (id: string, dependsOn: string[], body: string): Node => ({ id, dependsOn, lines: [`bash: ${JSON.stringify(body)}`] });
const sleepThenPrint = (random: SeededRandom, text: string) => `sleep 0.${String(random.int(5, 60)).padStart(2, '0')}; printf '%s' '${text}'`;

function featureNodes(feature: StressFeature, random: SeededRandom): { nodes: Node[]; paths: string[] } {
  switch (feature) {
    case 'gate':
      return { nodes: [{ id: 'gate', dependsOn: ['start'], lines: ['approval:', '  message: "stress: approve to go on"', '  capture_response: true'] }], paths: ['gate'] };
    case 'wait':
      return { nodes: [{ id: 'hold', dependsOn: ['start'], lines: [`wait: { duration_ms: ${random.int(200, 1500)} }`] }], paths: ['hold'] };
    case 'child':
      return { nodes: [{ id: 'child', dependsOn: ['start'], lines: [`workflow: ${LEAF_WORKFLOW}`, 'input: solo'] }], paths: ['child'] };
    case 'fanout': {
      const paths = ['each', ...FAN_OUT_ITEMS.flatMap((_, i) => [`each[${i}]`, ...LEAF_PATHS.map((p) => `each[${i}]/${p}`)])];
      const items = JSON.stringify(JSON.stringify(FAN_OUT_ITEMS));
      return { nodes: [{ id: 'each', dependsOn: ['start'], lines: [`workflow: ${LEAF_WORKFLOW}`, `fan_out: { items: ${items}, mode: in_run, max_parallel: 2 }`] }], paths };
    }
    case 'ai':
      return {
        nodes: [
          { id: 'ask', dependsOn: ['start'], lines: ['provider: anthropic', 'model: stand-in', 'prompt: "stress: answer in one word"'] },
          bash('use-answer', ['ask'], "printf '%s' \"$ask.output\" | wc -c"),
        ],
        paths: ['ask', 'use-answer'],
      };
  }
}

function renderYaml(name: string, description: string, nodes: readonly Node[]): string {
  const body = nodes.map((node) => {
    const deps = node.dependsOn.length > 0 ? [`depends_on: [${node.dependsOn.join(', ')}]`] : [];
    return [`  - id: ${node.id}`, ...[...deps, ...node.lines].map((line) => `    ${line}`)].join('\n');
  });
  return `name: ${name}\ndescription: ${JSON.stringify(description)}\nnodes:\n${body.join('\n')}\n`;
}

function leafWorkflow(): StressWorkflow {
  const nodes = [bash('a', [], `sleep 0.1; printf '%s' "leaf-$ARGUMENTS"`), bash('b', ['a'], 'sleep 0.1; printf \'%s\' "$a.output"')];
  return { name: LEAF_WORKFLOW, yaml: renderYaml(LEAF_WORKFLOW, 'cairn stress: a child workflow of two bash nodes', nodes) };
}

/** The workflow of run `index`: `nodes` top-level nodes, with `features` among them. */
function runWorkflow(index: number, nodes: number, features: readonly StressFeature[], random: SeededRandom) {
  const name = `stress-run-${index}`;
  const parts = features.map((f) => featureNodes(f, random));
  const featureCount = parts.reduce((n, p) => n + p.nodes.length, 0);
  const plain = Math.max(0, nodes - 2 - featureCount);
  const fans = Math.ceil(plain / 2);
  const all: Node[] = [bash('start', [], sleepThenPrint(random, 'start'))];
  for (let i = 0; i < fans; i++) all.push(bash(`fan-${i}`, ['start'], sleepThenPrint(random, `fan-${i}`)));
  for (let i = 0; i < plain - fans; i++) all.push(bash(`chain-${i}`, [i === 0 ? 'start' : `chain-${i - 1}`], sleepThenPrint(random, `chain-${i}`)));
  for (const part of parts) all.push(...part.nodes);
  const dependedOn = new Set(all.flatMap((n) => n.dependsOn));
  const sinks = all.filter((n) => n.id !== 'start' && !dependedOn.has(n.id)).map((n) => n.id);
  all.push(bash('end', sinks.length > 0 ? sinks : ['start'], "printf '%s' done"));
  const paths = ['start', ...all.slice(1, 1 + plain).map((n) => n.id), ...parts.flatMap((p) => p.paths), 'end'];
  return { workflow: { name, yaml: renderYaml(name, `cairn stress: run ${index} (${features.join(', ') || 'bash only'})`, all) }, paths };
}

/**
 * The workflows and runs of one stress pass: `runs` runs of `nodes` top-level nodes each. The
 * features rotate over the runs; `ai` only when a stand-in Messages API serves the runs.
 */
export function planStress(opts: { runs: number; nodes: number; withAi: boolean; random: SeededRandom }): StressPlan {
  const features = stressFeatures.filter((f) => f !== 'ai' || opts.withAi);
  // Each feature but `ai` (two nodes) takes one node; keep two for start and end.
  const perRun = Math.max(1, Math.min(features.length, Math.floor((opts.nodes - 2) / 2)));
  const leaf = leafWorkflow();
  const workflows: StressWorkflow[] = [leaf];
  const runs: PlannedRun[] = [];
  const expectedPaths: Record<string, string[]> = { [LEAF_WORKFLOW]: LEAF_PATHS };
  let cursor = 0;
  for (let index = 0; index < opts.runs; index++) {
    const chosen = Array.from({ length: perRun }, (_, k) => features[(cursor + k) % features.length]!);
    cursor += perRun;
    const { workflow, paths } = runWorkflow(index, opts.nodes, chosen, opts.random);
    workflows.push(workflow);
    runs.push({ index, workflow: workflow.name, features: chosen });
    expectedPaths[workflow.name] = paths;
  }
  return { workflows, runs, expectedPaths };
}
