/**
 * Chromium for the browser suites: Debian's `chromium` package driven by playwright-core
 * (which downloads no browser of its own), headless. `chromiumPath` is undefined where the
 * package is not installed; the suites then say so in one line and do not run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where a failing browser test leaves its screenshot (ignored by git). */
export const FAILURE_SCREENSHOT_DIR = join(PROJECT_ROOT, 'test-results');

/** The `chromium` on the PATH, as `which chromium` finds it; undefined when there is none. */
export const chromiumPath: string | undefined = (() => {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

export async function launchChromium(): Promise<Browser> {
  if (!chromiumPath) throw new Error('chromium is not installed (apt-get install chromium)');
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** Saves a full-page screenshot of what the page shows now, making the folder if need be. */
export async function saveScreenshot(page: Page, file: string): Promise<string> {
  mkdirSync(dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Runs one browser test's steps; when they fail, saves a screenshot named after the test under
 * test-results/ before failing with the error (and where the screenshot is).
 */
export async function withFailureScreenshot(page: Page, testName: string, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (error) {
    const file = join(FAILURE_SCREENSHOT_DIR, `${testName.replace(/[^A-Za-z0-9_-]+/g, '-')}.png`);
    const saved = await saveScreenshot(page, file).catch((screenshotError: unknown) => `not saved: ${String(screenshotError)}`);
    if (error instanceof Error) error.message += `\n(screenshot: ${saved})`;
    throw error;
  }
}
