import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../../src/workflow/loading/load-workflow.js';

const workflow = (triggers: string) => `
name: nightly-review
description: Reviews the day's changes
inputs:
  depth: { default: '1' }
triggers:
${triggers}
nodes:
  - id: review
    bash: echo reviewing
`;

describe("a workflow's triggers", () => {
  it('loads a schedule trigger with its defaults filled in', () => {
    const loaded = loadWorkflowText(workflow(`  - schedule: { cron: '30 2 * * *', timezone: Europe/Berlin, inputs: { depth: 3 } }`));
    expect(loaded.ok && loaded.workflow.triggers).toEqual([
      { schedule: { cron: '30 2 * * *', timezone: 'Europe/Berlin', inputs: { depth: '3' }, overlap: 'skip', catch_up: '1h' } },
    ]);
  });

  it('refuses a bad cron expression, time zone, overlap, catch-up or input by name when the workflow loads', () => {
    const loaded = loadWorkflowText(
      workflow(`  - schedule: { cron: '61 * * * *', timezone: Europe/Berlin }
  - schedule: { cron: '0 3 * * *', timezone: Europe/Atlantis, overlap: queue, catch_up: soon }
  - schedule: { cron: '0 3 * * *', inputs: { deep: 1 } }`),
    );
    expect(loaded.ok).toBe(false);
    const errors = loaded.ok ? [] : loaded.errors;
    expect(errors).toEqual(expect.arrayContaining([
      expect.stringMatching(/cron '61 \* \* \* \*' is not a cron expression/),
      expect.stringMatching(/timezone 'Europe\/Atlantis' is not an IANA time zone name/),
      expect.stringMatching(/'triggers\[1\]\.schedule\.overlap' must be one of: skip, buffer_one, buffer_all, cancel_other, allow_all/),
      expect.stringMatching(/catch_up 'soon' is not a duration/),
    ]));
  });

  it('refuses trigger inputs the workflow does not declare', () => {
    const loaded = loadWorkflowText(workflow(`  - schedule: { cron: '0 3 * * *', inputs: { deep: 1 } }`));
    expect(loaded.ok ? [] : loaded.errors).toEqual([
      "'triggers[0].schedule.inputs.deep' is not an input of this workflow; declared inputs: depth",
    ]);
  });
});
