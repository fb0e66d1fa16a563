import { z } from 'zod';

/**
 * A user's connection to one credential vendor, as stored: the secret (an API key, or an OAuth
 * access token) and the OAuth refresh token are sealed with the install key (shared/secrets) for
 * a context naming the user, the vendor and the part, so no value is ever kept in plain text and
 * a sealed value copied to another user or vendor does not open.
 */
export const credentialKindSchema = z.enum(['api_key', 'oauth']);
export type CredentialKind = z.infer<typeof credentialKindSchema>;

export const storedCredentialSchema = z.object({
  user_id: z.string().min(1),
  vendor: z.string().min(1),
  kind: credentialKindSchema,
  label: z.string(),
  sealed_secret: z.string().min(1),
  sealed_refresh: z.string().nullable(),
  /** When the access token stops working (OAuth); null for an API key. */
  expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type StoredCredential = z.infer<typeof storedCredentialSchema>;
