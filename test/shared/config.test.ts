import { mkdir, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/shared/config.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

async function writeConfig(yaml: string): Promise<void> {
  await mkdir(home.home, { recursive: true });
  await writeFile(home.paths.config, yaml);
}

describe('settings', () => {
  it('defaults to 8 nodes in flight, the per-run limit equal to it, and no fixed port', () => {
    const settings = loadSettings({ CAIRN_HOME: home.home });
    expect(settings).toMatchObject({ home: home.home, maxConcurrency: 8, perRunConcurrency: 8, port: undefined, host: '127.0.0.1' });
  });

  it('reads concurrency from config.yaml, and lets the environment override it', async () => {
    await writeConfig('assistant: claude\nconcurrency:\n  max: 12\n  perRun: 4\n');
    expect(loadSettings({ CAIRN_HOME: home.home })).toMatchObject({ maxConcurrency: 12, perRunConcurrency: 4 });
    expect(loadSettings({ CAIRN_HOME: home.home, CAIRN_MAX_CONCURRENCY: '3' })).toMatchObject({
      maxConcurrency: 3,
      perRunConcurrency: 3,
    });
  });

  it('names the variable or the config key that is malformed', async () => {
    expect(() => loadSettings({ CAIRN_HOME: home.home, CAIRN_MAX_CONCURRENCY: 'lots' })).toThrow(
      "CAIRN_MAX_CONCURRENCY must be a positive integer, got 'lots'",
    );
    expect(() => loadSettings({ CAIRN_HOME: home.home, PORT: '-1' })).toThrow("PORT '-1' is not a port number: it must be a whole number from 1 to 65535");
    expect(() => loadSettings({ CAIRN_HOME: home.home, PORT: '99999' })).toThrow("PORT '99999' is not a port number");
    await writeConfig('concurrency:\n  max: 0\n');
    expect(() => loadSettings({ CAIRN_HOME: home.home })).toThrow(/config\.yaml: concurrency\.max/);
  });

  it('keeps webhook deliveries 30 days unless webhooks.deliveryRetentionDays says otherwise; a bad value names the key', async () => {
    expect(loadSettings({ CAIRN_HOME: home.home }).hookDeliveryRetentionDays).toBe(30);
    await writeConfig('webhooks:\n  deliveryRetentionDays: 7\n');
    expect(loadSettings({ CAIRN_HOME: home.home }).hookDeliveryRetentionDays).toBe(7);
    for (const bad of ['0', '1.5', "'30d'", '36501', '-3']) {
      await writeConfig(`webhooks:\n  deliveryRetentionDays: ${bad}\n`);
      expect(() => loadSettings({ CAIRN_HOME: home.home }), bad).toThrow(
        /config\.yaml: webhooks\.deliveryRetentionDays must be a whole number of days from 1 to 36500, such as 30$/,
      );
    }
  });
});
