import type { NodeHandler } from '../run/node-handler.js';
import type { PlanKinds, PlannedAction, PlannedNode } from '../run/run-plan.js';
import type { RestoreKinds } from '../run/restore-run.js';
import type { EngineKinds, RunServices } from '../run/run-services.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';
import { compileRunPlan } from '../run/run-plan.js';
import { withOutputTypeFiles } from '../run/output-type-handlers.js';
import { agentKind } from './agent/kind.js';
import { childRunKind } from './child-run/kind.js';
import { execKind } from './exec/kind.js';
import { gateKind } from './gate/kind.js';
import { githubKind } from './github/kind.js';
import { haltKind } from './halt/kind.js';
import { loopGroupKind } from './loop-group/kind.js';
import { loopKind } from './loop/kind.js';
import type { KindPlanLevel, KindRun, NodeKind, SupervisorKindDeps } from './node-kind.js';
import { unsupportedAction, unsupportedKind } from './unsupported/kind.js';
import { waitKind } from './wait/kind.js';

/**
 * The node kinds of this version, one line each: adding a kind is its folder (`nodes/<kind>/`:
 * action, kind, handler) and a line here. A kind a written node matches is asked in this order.
 */
export const builtinNodeKinds: readonly NodeKind[] = [agentKind, execKind, gateKind, haltKind, waitKind, loopKind, loopGroupKind, childRunKind, githubKind];

/**
 * The registry the engine asks about kinds (run/run-services.ts `EngineKinds`). `extra` kinds come
 * after the built-in ones (a test's kind, say): registering one edits no file here.
 */
export function createNodeKinds(supervisor: SupervisorKindDeps, extra: readonly NodeKind[] = []): EngineKinds {
  const kinds = [...builtinNodeKinds, ...extra];
  const byType = new Map<string, NodeKind>();
  for (const kind of [...kinds, unsupportedKind]) {
    if (byType.has(kind.type)) throw new Error(`two node kinds have the action type '${kind.type}'`);
    byType.set(kind.type, kind);
  }
  const kindOf = (action: PlannedAction): NodeKind => {
    const kind = byType.get(action.type);
    if (!kind) throw new Error(`no node kind has the action type '${action.type}'`);
    return kind;
  };
  const sessionSegmentOf = (node: PlannedNode): string | undefined => kindOf(node.action).sessionSegment?.(node, { byId: new Map(), sessionSegmentOf });

  const planning: PlanKinds = {
    actionOf(node, descriptor, planner) {
      for (const kind of kinds) {
        const action = kind.plan(node, planner, descriptor);
        if (action !== undefined) return action;
      }
      return unsupportedAction(node.id, descriptor);
    },
    defaultRetryOf: (action) => kindOf(action).defaultRetry,
    linked(node, written, level) {
      const link = kindOf(node.action).link;
      const kindLevel: KindPlanLevel = { ...level, sessionSegmentOf };
      return link ? link(node, written, kindLevel) : node;
    },
  };
  const restore: RestoreKinds = {
    innerPathPrefixes: (node) => kindOf(node.action).restore?.innerPathPrefixes?.(node) ?? [],
    continuesAfterInterruption: (node) => kindOf(node.action).restore?.continuesAfterInterruption === true,
  };
  const compile = (definition: WorkflowDefinition) => compileRunPlan(definition, planning);

  return {
    planning,
    restore,
    forRun(services: RunServices) {
      const made = new Map<string, NodeHandler>();
      const byKind = { handlerFor: (node: PlannedNode): NodeHandler => made.get(kindOf(node.action).type)! };
      // Every attempt, nested ones too, goes through this set: a node's `output_type` files are written here.
      const handlers = withOutputTypeFiles(byKind, { ...services, sessionSegmentOf });
      const slotProviderOf = (node: PlannedNode): string | undefined => kindOf(node.action).slotProvider?.(node, run);
      const run: KindRun = { services, supervisor, handlers: () => handlers, slotProviderOf, compile };
      // Every kind's handler is made when the run's scheduler is (what it reads of the settings is read now).
      for (const kind of byType.values()) made.set(kind.type, kind.handler(run));
      return { handlers, providerOf: slotProviderOf };
    },
  };
}
