import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSupervisor, type LooseEvent } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const output = (events: LooseEvent[], id: string) =>
  events.find((e) => e.step_name === id && e.event_type === 'node_completed')?.data.node_output as string | undefined;

/** The reproduction, widened: an output and inputs reach later nodes in every quoting context. */
const workflow = `
name: hostile-values
description: hostile values reach nodes as data
inputs:
  topic: { required: true }
nodes:
  - id: m
    bash: printf '%s' "$ARGUMENTS"
  - id: n
    depends_on: [m]
    bash: echo "got $m.output"
  - id: single
    depends_on: [m]
    bash: printf '%s' 'got $m.output'
  - id: bare
    depends_on: [m]
    bash: x=$m.output; printf '%s' "$x"
  - id: heredoc
    depends_on: [m]
    bash: |
      cat <<EOF
      $m.output|$INPUTS.topic
      EOF
  - id: ticks
    depends_on: [m]
    bash: printf '%s' "\`printf '%s' $m.output $INPUTS.topic\`"
  - id: env
    bash: printf '%s|%s' "$INPUTS_TOPIC" "$USER_MESSAGE"
`;

const values = [
  '$(touch pwned)',
  '`touch pwned`',
  "'; touch pwned; '",
  '"; touch pwned; "',
  '$((1+1))',
  'one\ntwo',
  Array.from({ length: 255 }, (_, i) => String.fromCharCode(i + 1)).join('').replace(/\n+$/, ''),
  `${'v'.repeat(200 * 1024)}$(touch pwned)`,
];

it('hands hostile and 200 KB messages, outputs and inputs to nodes exactly, and never runs them', { timeout: 240_000 }, async () => {
  const sup = await startSupervisor(home);
  for (const value of values) {
    const run = await sup.createRun(workflow, { message: value, inputs: { topic: value }, workingPath: home.home });
    const done = await sup.waitForStatus(run.id, ['completed', 'failed']);
    const events = await sup.events(run.id);
    const label = JSON.stringify(value).slice(0, 60);
    expect(done.status, `${label}: ${JSON.stringify(events.filter((e) => e.event_type === 'node_failed').map((e) => e.data))}`).toBe('completed');
    expect(existsSync(join(home.home, 'pwned')), label).toBe(false);
    // A node_completed record keeps the first 32 KiB of an output; the unit tests check 200 KB exactly.
    const same = (id: string, full: string) => {
      const expected = full.slice(0, 32 * 1024);
      expect({ id, length: output(events, id)?.length, same: output(events, id) === expected }).toEqual({ id, length: expected.length, same: true });
    };
    same('m', value);
    same('n', `got ${value}`);
    same('single', `got ${value}`);
    same('bare', value);
    same('heredoc', `${value}|${value}`);
    same('ticks', `${value}${value}`);
    same('env', `${value}|${value}`);
  }
});
