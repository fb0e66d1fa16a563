import { z } from 'zod';
import { closestName } from '../loading/did-you-mean.js';
import { inputTypes, typeProblem, type InputType, type InputValue } from './input-types.js';

/**
 * One declared input: `{ required?, default?, description?, type?, enum?, items? }`. Without a
 * `type` an input holds a string (a number or boolean default is kept as its text, as before types
 * existed); with one, its default must be a value of that type, or the workflow does not load.
 */

const inputTypeSchema = z.enum(inputTypes, {
  error: (iss) => {
    const given = typeof iss.input === 'string' ? iss.input : JSON.stringify(iss.input);
    // `bool`, `int`, `str` are the short names of other languages: the type they begin.
    const meant =
      typeof iss.input === 'string'
        ? (closestName(iss.input, inputTypes) ?? inputTypes.find((t) => iss.input !== '' && t.startsWith((iss.input as string).toLowerCase())))
        : undefined;
    return `must be one of ${inputTypes.join(', ')}, not '${given}'${meant ? ` (did you mean '${meant}'?)` : ''}`;
  },
});

export const inputSpecSchema = z
  .object({
    required: z.boolean().optional(),
    /** ✚ The type of the input's values; omitted, a string. */
    type: inputTypeSchema.optional(),
    /** ✚ The strings a string input may hold. */
    enum: z.array(z.string()).min(1).optional(),
    /** ✚ The type of each item of an array input. */
    items: z.strictObject({ type: inputTypeSchema }).optional(),
    default: z.json().optional(),
    description: z.string().optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.enum !== undefined && (spec.type ?? 'string') !== 'string') {
      ctx.addIssue({ code: 'custom', path: ['enum'], message: `lists strings, so it needs 'type: string' (or no type), not 'type: ${spec.type}'` });
    }
    if (spec.items !== undefined && spec.type !== 'array') {
      ctx.addIssue({ code: 'custom', path: ['items'], message: `describes the elements of an array, so it needs 'type: array'` });
    }
    if (spec.default === undefined) return;
    if (spec.type === undefined && spec.enum === undefined) {
      if (!['string', 'number', 'boolean'].includes(typeof spec.default)) {
        ctx.addIssue({ code: 'custom', path: ['default'], message: 'must be text, a number or a boolean; declare a type (array, object) for other values' });
      }
      return;
    }
    const problem = typeProblem(spec, spec.default);
    if (problem) ctx.addIssue({ code: 'custom', path: ['default'], message: `does not match the input's declared type: ${problem}` });
  })
  .transform(({ default: given, ...rest }): InputSpec => {
    if (given === undefined || given === null) return rest;
    // An untyped input holds text: its number or boolean default is kept as its text.
    return { ...rest, default: rest.type === undefined && typeof given !== 'object' ? String(given) : (given as InputValue) };
  });

/** A type alias (not an interface): the API's loose view of a workflow takes it as a record. */
export type InputSpec = {
  required?: boolean | undefined;
  type?: InputType | undefined;
  enum?: string[] | undefined;
  items?: { type: InputType } | undefined;
  default?: InputValue | undefined;
  description?: string | undefined;
};
