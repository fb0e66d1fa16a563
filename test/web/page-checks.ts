import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * What every dashboard page must do whatever it shows: fit a narrow window without a sideways
 * scroll, and follow the system's dark setting. Leaves the page at 1280×800 in the light theme.
 */
export async function checkNarrowAndDark(page: Page): Promise<void> {
  await page.setViewportSize({ width: 420, height: 800 });
  // Whatever reaches past the window's right edge, named (none may).
  const wide = await page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
    .filter((el) => !el.closest('.dag-scroll, .conversation-list, pre'))
    .map((el) => el.tagName.toLowerCase() + '.' + el.className)`);
  expect(wide).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await page.evaluate('getComputedStyle(document.body).backgroundColor');
  expect(dark).toBe('rgb(22, 24, 28)');
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(247, 247, 248)');
  await page.setViewportSize({ width: 1280, height: 800 });
}
