import type { z } from 'zod';

/**
 * Finds the keys of a raw YAML value that a zod schema would strip. Objects parse in "strip"
 * mode so that a typo never rejects a whole workflow; this walk makes every stripped key
 * visible as a parse warning instead of a silent loss. The known keys come from the schemas
 * themselves, so the two can never drift.
 *
 * Loose objects (`catchall: unknown`) keep every key and strict ones reject unknown keys as
 * errors, so neither is walked for warnings.
 */

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  element?: z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Strips wrappers that do not change which keys an object accepts. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.innerType && ['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) {
      current = def.innerType;
    } else if (def.type === 'pipe' && def.in) {
      current = def.in;
    } else {
      return current;
    }
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The keys a schema declares, when it is an object schema (after unwrapping). */
export function declaredKeys(schema: z.ZodType): string[] | undefined {
  const def = defOf(unwrap(schema));
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

/** A key a schema does not declare: its dotted path, the key, and the keys its object does declare. */
export interface UnknownKey {
  path: string;
  key: string;
  known: string[];
}

/**
 * Every key in `raw` that `schema` does not declare, with its dotted path (from `prefix`),
 * recursing through nested objects, records, arrays and unions.
 */
export function findUnknownKeys(schema: z.ZodType, raw: unknown, prefix = ''): UnknownKey[] {
  const found: UnknownKey[] = [];
  walk(schema, raw, prefix, found);
  return found;
}

function walk(schema: z.ZodType, raw: unknown, prefix: string, found: UnknownKey[]): void {
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case 'object': {
      if (!isPlainObject(raw) || def.catchall || !def.shape) return;
      for (const [key, value] of Object.entries(raw)) {
        const child = def.shape[key];
        if (!child) found.push({ path: `${prefix}${key}`, key, known: Object.keys(def.shape) });
        else walk(child, value, `${prefix}${key}.`, found);
      }
      return;
    }
    case 'record': {
      if (!isPlainObject(raw) || !def.valueType) return;
      for (const [key, value] of Object.entries(raw)) walk(def.valueType, value, `${prefix}${key}.`, found);
      return;
    }
    case 'array': {
      if (!Array.isArray(raw) || !def.element) return;
      const base = prefix.endsWith('.') ? prefix.slice(0, -1) : prefix;
      raw.forEach((item, i) => walk(def.element!, item, `${base}[${i}].`, found));
      return;
    }
    case 'union': {
      if (!isPlainObject(raw)) return;
      const objectOption = def.options?.find((o) => ['object', 'record'].includes(defOf(unwrap(o)).type));
      if (objectOption) walk(objectOption, raw, prefix, found);
      return;
    }
    default:
      return;
  }
}
