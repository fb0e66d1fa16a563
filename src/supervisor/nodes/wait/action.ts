/** A `wait:` node: a durable timer. */
export interface WaitAction {
  type: 'wait';
  durationMs?: number;
  /** An ISO-8601 moment, or a `$node.output[.field]` reference to one (substituted when reached). */
  until?: string;
  message?: string;
}
