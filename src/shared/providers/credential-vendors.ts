import type { ProviderId } from './registry.js';

/**
 * Credential vendors: who issues the key a provider call is made with. A user connects a key
 * (or a subscription login) per vendor; every provider of that vendor then uses it for the
 * user's runs. Upstream's ids and legacy write aliases (REFERENCE §7.3).
 */

export interface CredentialVendor {
  id: string;
  displayName: string;
  /** The environment variables that give the server a key of its own for this vendor. */
  installEnv: readonly string[];
}

const vendors: readonly CredentialVendor[] = [
  { id: 'anthropic', displayName: 'Anthropic', installEnv: ['ANTHROPIC_API_KEY'] },
  { id: 'github-copilot', displayName: 'GitHub Copilot', installEnv: ['COPILOT_PROVIDER_API_KEY', 'COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'] },
  { id: 'google', displayName: 'Google Gemini', installEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] },
  { id: 'groq', displayName: 'Groq', installEnv: ['GROQ_API_KEY'] },
  { id: 'mistral', displayName: 'Mistral', installEnv: ['MISTRAL_API_KEY'] },
  { id: 'openai', displayName: 'OpenAI', installEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY'] },
  { id: 'openrouter', displayName: 'OpenRouter', installEnv: ['OPENROUTER_API_KEY'] },
  { id: 'xai', displayName: 'xAI', installEnv: ['XAI_API_KEY'] },
];
const byId = new Map(vendors.map((v) => [v.id, v]));

/** Upstream's assistant-named ids, accepted on writes and normalised to the vendor. */
const legacyIds: Readonly<Record<string, string>> = { claude: 'anthropic', codex: 'openai', copilot: 'github-copilot' };

/** The vendors with a subscription (OAuth) login, sorted. */
export const subscriptionVendors = ['anthropic', 'github-copilot', 'openai'] as const;
export type SubscriptionVendor = (typeof subscriptionVendors)[number];

/** Every vendor an API key can be connected for, sorted. */
export function listCredentialVendors(): readonly CredentialVendor[] {
  return vendors;
}

export function getCredentialVendor(id: string): CredentialVendor | undefined {
  return byId.get(id);
}

/** The vendor id a write names, legacy ids normalised; undefined when it names none. */
export function normaliseVendorId(id: string): string | undefined {
  const vendor = legacyIds[id] ?? id;
  return byId.has(vendor) ? vendor : undefined;
}

export function isSubscriptionVendor(id: string): id is SubscriptionVendor {
  return (subscriptionVendors as readonly string[]).includes(id);
}

/** The refusal for a vendor id that names none (the id is shown as JSON, so a hostile one stays one quoted token). */
export function describeUnknownVendor(id: string): string {
  return `Unknown credential vendor ${JSON.stringify(id.slice(0, 100))}. Known: ${vendors.map((v) => v.id).join(', ')} (legacy: ${Object.keys(legacyIds).join(', ')})`;
}

/**
 * Whose credential a provider's calls use. The agent CLIs and API providers Cairn drives call
 * one vendor each: OpenCode and Pi are pointed at a Chat Completions server, so they take an
 * OpenAI key, as `openai-compatible` does.
 */
const vendorOfProvider: Readonly<Record<ProviderId, string>> = {
  claude: 'anthropic',
  anthropic: 'anthropic',
  codex: 'openai',
  'openai-compatible': 'openai',
  opencode: 'openai',
  pi: 'openai',
  copilot: 'github-copilot',
  gemini: 'google',
};

export function credentialVendorOf(provider: ProviderId): string {
  return vendorOfProvider[provider];
}
