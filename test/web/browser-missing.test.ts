import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { openBrowser } from './browser.js';

/** Without Chromium the browser tests fail, saying what to install: they are never skipped. */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('fails with what to install when the browser is not there', async () => {
  await expect(openBrowser(home, { executable: `${home.home}/no-chromium` })).rejects.toThrow(
    /need Debian's Chromium at .*no-chromium, and it is not there\. Install it with: apt-get install -y chromium/,
  );
});
