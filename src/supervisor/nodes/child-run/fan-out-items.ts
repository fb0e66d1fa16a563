import { createHash } from 'node:crypto';
import type { FanOutInstance } from '../../../records/schemas/fan-out-instances.js';
import type { SubstituteText } from '../../run/node-context.js';
import type { NodeAttempt } from '../../run/node-handler.js';

/** `fan_out.items` as the node sees it: a JSON array, or an error naming what it was instead. */
export function resolveFanOutItems(
  substituteText: SubstituteText,
  attempt: NodeAttempt,
  source: string,
): { ok: true; values: unknown[] } | { ok: false; error: string } {
  const text = substituteText(attempt.node, source);
  if (!text.ok) return text;
  const where = `Node '${attempt.node.id}': 'fan_out.items' must resolve to a JSON array`;
  let value: unknown;
  try {
    value = JSON.parse(text.text);
  } catch {
    return { ok: false, error: `${where}; got text that is not JSON (${text.text.length} characters)` };
  }
  if (!Array.isArray(value)) {
    return { ok: false, error: `${where}; got ${value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`}` };
  }
  return { ok: true, values: value };
}

/** The text an item is handed to its child as (`$ARGUMENTS`): a string as it is, anything else as JSON. */
export function itemText(item: unknown): string {
  return typeof item === 'string' ? item : JSON.stringify(item);
}

/**
 * The instance snapshot of an in-run fan-out: each item's identity is derived from the item
 * itself (a hash of its canonical JSON; the n-th repeat of an equal item gets `~n`), not from
 * its position, so the same items in the same order always get the same identities.
 */
export function instancesOf(items: readonly unknown[]): FanOutInstance[] {
  const seen = new Map<string, number>();
  return items.map((item, ordinal) => {
    const hash = createHash('sha256').update(canonicalJson(item)).digest('hex').slice(0, 16);
    const count = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, count);
    return { ordinal, identity: count === 1 ? hash : `${hash}~${count}`, item: item as FanOutInstance['item'], inputs: {} };
  });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
