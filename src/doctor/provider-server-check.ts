import { failed, passed, type CheckResult } from './check.js';
import { reachUrl, type Reach } from './reach-url.js';

/**
 * Whether the server a provider is pointed at (`assistants.<id>.baseUrl` or its `*_BASE_URL`)
 * answers. Several providers often share one (OPENAI_BASE_URL): each URL is tried once.
 */

export type ReachCache = Map<string, Promise<Reach>>;

export async function checkProviderServer(
  provider: string,
  baseUrl: { value: string; from: string },
  cache: ReachCache,
): Promise<CheckResult> {
  const id = `provider.${provider}.server`;
  const name = `${provider} server`;
  let reach = cache.get(baseUrl.value);
  if (!reach) cache.set(baseUrl.value, (reach = reachUrl(baseUrl.value)));
  const answer = await reach;
  if (answer.ok) return passed(id, name, `${baseUrl.value} (from ${baseUrl.from}) answers at ${answer.address} (HTTP ${answer.status})`);
  return failed(
    id,
    name,
    `${baseUrl.value} (from ${baseUrl.from}): no answer from ${answer.address}: ${answer.why}`,
    `start the server at ${answer.address}, or fix ${baseUrl.from} to point at one that runs`,
  );
}
