import { z } from 'zod';

/**
 * A run input's value as the store keeps it and the API shows it: text for an input without a
 * type, a value of its declared type (number, boolean, array, object) for a typed one. Written
 * without recursion so the OpenAPI document can describe it (z.json() cannot be).
 */
export const inputValueSchema = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .describe('Text for an input without a type; a value of its declared type for a typed one');
