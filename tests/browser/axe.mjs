// Runs axe-core in headless Debian chromium (driven by playwright-core) on a
// built Vellum site served on loopback, in light and dark colour schemes.
// Usage: node axe.mjs SITE_DIR PAGE_PATH...   (paths like /authors/x/)
// Prints each violation and exits 1 when there is any; 0 otherwise.
import { readFile } from 'node:fs/promises';
import { serveDir } from './serve-dir.mjs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
const [root, ...pages] = process.argv.slice(2);
const { origin, close } = await serveDir(root);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let violations = 0;
try {
  for (const scheme of ['light', 'dark']) {
    const page = await browser.newPage({ colorScheme: scheme });
    for (const path of pages) {
      await page.goto(origin + path);
      // The search page is checked with its results shown.
      if (path.includes('?q=')) await page.waitForSelector('.search-result', { timeout: 10000 });
      await page.addScriptTag({ content: axeSource });
      const result = await page.evaluate(() => window.axe.run(document));
      for (const v of result.violations) {
        violations += 1;
        console.log(`${path} (${scheme}): ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      }
      console.log(`${path} (${scheme}): ${result.violations.length} violations, ${result.passes.length} rules passed`);
    }
    await page.close();
  }
} finally {
  await browser.close();
  close();
}
process.exit(violations ? 1 : 0);
