import type { ProviderConnectionSettings } from '../shared/providers/provider-settings.js';
import { bundledModelCatalog, type CatalogModel } from '../shared/providers/model-catalog.js';
import { getProvider } from '../shared/providers/registry.js';
import type { Logger } from '../shared/log.js';
import type { ModelInfo } from '../wire/model-config.js';

/**
 * The model catalog of one backend for `GET /api/providers/{vendor}/models`: the provider's own
 * list when a connection to it is configured and it answers in time, with cost and reasoning
 * facts from the bundled catalog added; the bundled catalog otherwise; `[]` for a vendor Cairn
 * has no catalog for. Never an error.
 */

export const MODEL_LIST_TIMEOUT_MS = 3_000;
const MAX_LIST_BYTES = 2 * 1024 * 1024;

/** A vendor id, or a provider id standing for its vendor (`claude` → `anthropic`). */
export function vendorOf(name: string): string | undefined {
  if (Object.hasOwn(bundledModelCatalog, name)) return name;
  const provider = getProvider(name);
  return provider?.vendor;
}

interface LiveSource {
  url: string;
  headers: Record<string, string>;
  ids: (body: unknown) => { id: string; displayName?: string }[];
}

function dataOf(body: unknown): unknown[] {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data : [];
}

function liveSource(vendor: string, connections: Readonly<Record<string, ProviderConnectionSettings>>): LiveSource | undefined {
  const pick = (...ids: string[]) => ids.map((id) => connections[id]).find((c) => c?.baseUrl !== undefined || c?.apiKey !== undefined);
  const trim = (url: string) => url.replace(/\/+$/, '');
  if (vendor === 'anthropic') {
    const c = pick('anthropic', 'claude');
    if (!c) return undefined;
    return {
      url: `${trim(c.baseUrl ?? 'https://api.anthropic.com')}/v1/models?limit=1000`,
      headers: { 'anthropic-version': '2023-06-01', ...(c.apiKey ? { 'x-api-key': c.apiKey } : {}) },
      ids: (body) =>
        dataOf(body).flatMap((m) => {
          const { id, display_name } = (m ?? {}) as { id?: unknown; display_name?: unknown };
          return typeof id === 'string' ? [{ id, ...(typeof display_name === 'string' ? { displayName: display_name } : {}) }] : [];
        }),
    };
  }
  if (vendor === 'openai') {
    const c = pick('openai-compatible', 'codex');
    if (!c) return undefined;
    return {
      url: `${trim(c.baseUrl ?? 'https://api.openai.com/v1')}/models`,
      headers: c.apiKey ? { authorization: `Bearer ${c.apiKey}` } : {},
      ids: (body) =>
        dataOf(body).flatMap((m) => {
          const { id } = (m ?? {}) as { id?: unknown };
          return typeof id === 'string' ? [{ id }] : [];
        }),
    };
  }
  return undefined;
}

const fromCatalog = (vendor: string, m: CatalogModel, source: ModelInfo['source']): ModelInfo => ({ ...m, vendor, source });

export async function listProviderModels(
  name: string,
  deps: { connections: Readonly<Record<string, ProviderConnectionSettings>>; log: Logger; timeoutMs?: number },
): Promise<ModelInfo[]> {
  const vendor = vendorOf(name);
  if (vendor === undefined) return [];
  const bundled = bundledModelCatalog[vendor] ?? [];
  const source = liveSource(vendor, deps.connections);
  if (source) {
    try {
      const res = await fetch(source.url, { headers: source.headers, signal: AbortSignal.timeout(deps.timeoutMs ?? MODEL_LIST_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const text = await res.text();
      if (text.length > MAX_LIST_BYTES) throw new Error('model list too large');
      const listed = source.ids(JSON.parse(text) as unknown);
      const known = new Map(bundled.map((m) => [m.id, m]));
      return listed.slice(0, 1000).map(({ id, displayName }) => {
        const facts = known.get(id);
        return facts ? fromCatalog(vendor, facts, 'provider') : { id, displayName: displayName ?? id, vendor, reasoning: false, source: 'provider' as const };
      });
    } catch (err) {
      // The key is in the headers only; the message names the vendor and what failed.
      deps.log.warn({ vendor, error: err instanceof Error ? err.message : String(err) }, 'providers.model_list_failed');
    }
  }
  return bundled.map((m) => fromCatalog(vendor, m, 'bundled'));
}
