import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { TempHome } from '../helpers/temp-home.js';

/**
 * The dashboard's browser tests drive Debian's Chromium (the `chromium` package) through
 * playwright-core, which downloads no browser. Headless, no sandbox (tests run as root in CI),
 * no background networking, a fresh profile in the temp home. Without the browser the tests fail
 * and say what to install: a skipped browser test would let the dashboard break unseen.
 */
export const CHROMIUM = '/usr/bin/chromium';

export interface Browser {
  context: BrowserContext;
  /** A new tab; every request it makes is recorded in `requests`. */
  page(): Promise<Page>;
  /** Every URL any tab asked for, in order. */
  requests: string[];
}

/**
 * `hostRules`: names the browser resolves to 127.0.0.1 (a reverse proxy's name, a rebinding
 * site's). `executable` is only ever changed to check the message for a missing browser.
 */
export async function openBrowser(home: TempHome, opts: { hostRules?: string[]; executable?: string } = {}): Promise<Browser> {
  const executable = opts.executable ?? CHROMIUM;
  if (!existsSync(executable)) {
    throw new Error(
      `The dashboard's browser tests need Debian's Chromium at ${executable}, and it is not there. ` +
        'Install it with: apt-get install -y chromium (playwright-core drives it; no other browser is downloaded).',
    );
  }
  const profile = await mkdtemp(join(home.home, 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: executable,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      ...(opts.hostRules?.length ? [`--host-resolver-rules=${opts.hostRules.map((name) => `MAP ${name} 127.0.0.1`).join(', ')}`] : []),
    ],
    viewport: { width: 1280, height: 800 },
  });
  home.defer(() => context.close());
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  return {
    context,
    requests,
    async page() {
      const page = await context.newPage();
      return page;
    },
  };
}
