/** Why a node is skipped: the contract's `skipped.reason` with its typed `cause`. */
export type SkipDecision =
  | { reason: 'trigger_rule'; cause: { kind: 'upstream_failed' | 'upstream_skipped'; origin: string } }
  | { reason: 'when_condition'; cause: { kind: 'condition'; expr: string } }
  | { reason: 'when_condition_parse_error'; cause: { kind: 'condition_parse_error'; expr: string } };
