// Debian's Chromium driven by playwright-core (no browser download): headless, no sandbox (CI runs as root),
// nothing reaching the network on its own, a fresh profile per run. Where it is missing outside CI the
// browser tests say so and skip; under CI=true they must run.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether the browser tests can run here; under CI a missing browser is a failure, not a skip. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
  process.stderr.write(`dashboard browser tests SKIPPED: ${CHROMIUM} not found (apt-get install chromium)\n`);
  return false;
}

/** A fresh profile (playwright passes it as --user-data-dir) in one browser context. */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    locale: 'es-CR',
    // A browser outside Costa Rica (UTC+01:00/+02:00): the dates the dashboard shows must be Costa Rica's
    // all the same, not this zone's.
    timezoneId: 'Europe/Madrid',
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
