import { DEFAULT_FAN_OUT_MAX_PARALLEL } from '../../../workflow/schema/node-blocks.js';
import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import { ChildRuns } from '../../children/child-runs.js';
import type { NodeKind } from '../node-kind.js';
import type { ChildRunAction } from './action.js';
import { ChildRunNodeHandler } from './child-run.js';
import { InRunFanOut } from './fan-out-in-run.js';

/** `workflow:` nodes: a child run, or with `fan_out` one per item (child runs, or instances inside this run). */
export const childRunKind: NodeKind<ChildRunAction> = {
  type: 'child_run',
  plan(node: WorkflowNode) {
    if (!('workflow' in node)) return undefined;
    const fan = node.fan_out;
    return {
      type: 'child_run',
      workflow: node.workflow,
      input: node.input,
      with: node.with,
      isolation: node.isolation ?? 'inherit',
      ...(fan
        ? { fanOut: { items: fan.items, as: fan.as, maxParallel: fan.max_parallel ?? DEFAULT_FAN_OUT_MAX_PARALLEL, join: fan.join ?? 'all_success', mode: fan.mode } }
        : {}),
    };
  },
  handler({ services, supervisor, handlers, compile }) {
    const { store, run, events, log } = services;
    return new ChildRunNodeHandler({
      store, run, substituteText: services.context.substituteText,
      children: new ChildRuns({
        store, signals: supervisor.children.signals, lookup: supervisor.children.lookup, parent: run, workingPath: services.workingPath,
        env: services.runEnv, installKey: services.settings.installKey, log,
      }),
      inRun: new InRunFanOut({
        store, run, handlers, events, checkCondition: services.context.checkCondition, limiter: services.limiter, runSlots: services.runSlots, compile, log,
      }),
    });
  },
  // An in-run fan-out's instances run at `<node>[i]` and `<node>[i]/<id>`.
  restore: { innerPathPrefixes: (node) => (node.action.fanOut ? [`${node.id}[`] : []) },
};
