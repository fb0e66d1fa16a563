/**
 * Row → object conversions. The PostgreSQL columns keep SQLite's shapes (JSON as text, booleans
 * as 0/1, ISO timestamps as text), so every row reads back through the conversions both backends
 * share (store/rows.ts).
 */
export {
  RUN_COLUMNS, toCodebase, toConversation, toEvent, toHeartbeat, toIsolationEnvironment, toJob, toRun, toRunEvent,
} from '../rows.js';

/** The node count SQLite reads with json_array_length(definition, '$.nodes'). */
export function nodeCountOf(definition: unknown): number {
  const nodes = (definition as { nodes?: unknown } | null)?.nodes;
  return Array.isArray(nodes) ? nodes.length : 0;
}
