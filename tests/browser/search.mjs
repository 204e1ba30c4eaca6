// End-to-end test of the search page in headless Debian chromium (driven by
// playwright-core) on a built Vellum site (base path `/`) served on loopback.
// Usage, from the repository root: node tests/browser/search.mjs PUBLIC_DIR
// Checks the header search box, results, highlights, facets, URL state,
// keyboard (ArrowDown/Enter/Escape), "More results", and runs axe-core on the
// search page with results shown, in light and dark schemes.
// Prints a one-line summary; exits 1 with a message on the first failure.
import { readFile } from 'node:fs/promises';
import { serveDir } from './serve-dir.mjs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const root = process.argv[2];
if (!root) {
  console.error('usage: node tests/browser/search.mjs PUBLIC_DIR');
  process.exit(2);
}
const SERVERLESS_MOE = 'Optimizing Distributed Deployment of Mixture-of-Experts Model Inference in Serverless Computing';

const { origin, close } = await serveDir(root);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});

let checks = 0;
function check(condition, message) {
  if (!condition) throw new Error(message);
  checks += 1;
}
const pageErrors = [];
const statusText = (page) => page.locator('.search-status').textContent();
async function waitStatus(page, pattern) {
  try {
    await page.waitForFunction(
      (source) => new RegExp(source).test(document.querySelector('.search-status')?.textContent ?? ''),
      pattern.source, { timeout: 10_000 },
    );
  } catch {
    throw new Error(`status never matched ${pattern}: got "${await statusText(page)}"`);
  }
}

async function axe(page, label) {
  await page.addScriptTag({ content: await readFile(require.resolve('axe-core/axe.min.js'), 'utf8') });
  const result = await page.evaluate(() => window.axe.run(document));
  const found = result.violations.map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  check(!found.length, `axe (${label}):\n  ${found.join('\n  ')}`);
}

try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') pageErrors.push(`HTTP ${r.status()} ${r.url()}`);
  });

  // Header search box → search page.
  await page.goto(`${origin}/`);
  await page.fill('#header-search-input', 'serverless moe');
  await Promise.all([page.waitForURL(/\/search\/\?q=serverless/), page.press('#header-search-input', 'Enter')]);
  await waitStatus(page, /^\d+ results? for “serverless moe”/);
  const firstTitle = (await page.locator('#search-results [role="option"] .search-hit-title').first().textContent()).trim();
  check(firstTitle === SERVERLESS_MOE, `first result is "${firstTitle}", expected "${SERVERLESS_MOE}"`);
  check(await page.locator('#search-results [role="option"]').first().locator('mark').count() > 0, 'no <mark> in the first result');
  check(await page.inputValue('#search-input') === 'serverless moe', 'search input not filled from ?q=');

  // Year facet 2025: the count on the button is the number of results.
  const year = page.locator('.search-facet-button[data-facet="year"][data-value="2025"]');
  check(await year.count() === 1, 'no 2025 year facet button');
  await year.click();
  await page.waitForSelector('.search-facet-button[data-facet="year"][data-value="2025"][aria-pressed="true"]');
  await waitStatus(page, /in 2025/);
  const facetCount = Number((await page.locator('.search-facet-button[aria-pressed="true"] .search-facet-count').textContent()).replace(/\D+/g, ''));
  const shown = await page.locator('#search-results [role="option"]').count();
  const status = await statusText(page);
  check(facetCount >= 1 && shown === facetCount, `2025 facet says ${facetCount}, ${shown} results shown`);
  check(status.startsWith(`${facetCount} result`), `status "${status}" disagrees with facet count ${facetCount}`);
  check(page.url().includes('q=serverless') && page.url().includes('year=2025'), `URL ${page.url()} lacks q/year`);
  const metas = await page.locator('.search-hit-meta').allTextContents();
  check(metas.every((m) => m.includes('2025')), `a result outside 2025: ${metas.join(' | ')}`);

  // Same facet with a query that has results in several years.
  await page.fill('#search-input', 'mixture experts');
  await waitStatus(page, /^2 results for “mixture experts” in 2025$/);
  check(await page.locator('#search-results [role="option"]').count() === 2, 'mixture experts in 2025: not 2 results');
  check(/q=mixture\+experts/.test(page.url()), `URL ${page.url()} not updated while typing`);

  // Enter without an active result searches in place (no reload).
  await page.evaluate(() => { window.notReloaded = true; });
  await page.press('#search-input', 'Enter');
  await waitStatus(page, /^2 results for “mixture experts” in 2025$/);
  check(await page.evaluate(() => window.notReloaded === true), 'Enter reloaded the search page');

  // Keyboard: ArrowDown activates the first result, Escape clears it, then the query.
  await page.focus('#search-input');
  await page.keyboard.press('ArrowDown');
  let activeId = await page.getAttribute('#search-input', 'aria-activedescendant');
  check(activeId === 'search-result-0', `aria-activedescendant is ${activeId} after ArrowDown`);
  check(await page.getAttribute('#search-result-0', 'aria-selected') === 'true', 'first option not aria-selected');
  await page.keyboard.press('ArrowDown');
  activeId = await page.getAttribute('#search-input', 'aria-activedescendant');
  check(activeId === 'search-result-1', `aria-activedescendant is ${activeId} after two ArrowDowns`);

  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await axe(page, `search page with results, ${scheme}`);
  }

  await page.keyboard.press('Escape');
  check(await page.getAttribute('#search-input', 'aria-activedescendant') === null, 'Escape left an active result');
  check(await page.inputValue('#search-input') === 'mixture experts', 'first Escape cleared the query');
  await page.keyboard.press('Escape');
  check(await page.inputValue('#search-input') === '', 'second Escape did not clear the query');
  // The year facet stays selected: its papers are listed without a query.
  await waitStatus(page, /^2 results in 2025$/);
  check(!page.url().includes('q=') && page.url().includes('year=2025'), `URL ${page.url()} after clearing the query`);
  await page.click('.search-facet-button[data-facet="year"][aria-pressed="true"]');
  await page.waitForFunction(() => !document.querySelector('#search-results [role="option"]'));
  check(await statusText(page) === '' && new URL(page.url()).search === '', `not reset: "${await statusText(page)}", ${page.url()}`);

  // Enter opens the active result.
  await page.goto(`${origin}/search/?q=zoe`);
  await waitStatus(page, /^1 result for “zoe”/);
  await page.focus('#search-input');
  await page.keyboard.press('ArrowDown');
  await Promise.all([page.waitForURL(/\/papers\/[^/]+\/$/), page.keyboard.press('Enter')]);
  check((await page.locator('h1').textContent()).includes('Accents in Author Names'), 'Enter did not open the Zoë Chen paper');

  // Direct link, "More results", and HTML in the query shown as text.
  await page.goto(`${origin}/search/?q=xiaowen`);
  await waitStatus(page, /^18 results for “xiaowen”/);
  check(await page.locator('#search-results [role="option"]').count() === 10, 'xiaowen: not 10 results at first');
  await page.click('.search-more');
  await page.waitForFunction(() => document.querySelectorAll('#search-results [role="option"]').length === 18);
  check(await page.locator('.search-more').isHidden(), '"More results" still shown with all 18 results');
  const author = await page.locator('.search-facet-button[data-facet="author"]').first().textContent();
  check(/Xiaowen Chu\s*18/.test(author), `author facet reads "${author}"`);

  // A large index (its author shards past the engine's eager limit, faked
  // here): the author facet waits for "Count authors", then counts.
  await page.route('**/search/index.json', async (route) => {
    const entry = await (await route.fetch()).json();
    entry.authors_of.bytes = 1e9;
    await route.fulfill({ json: entry });
  });
  await page.goto(`${origin}/search/?q=xiaowen`);
  await waitStatus(page, /^18 results for “xiaowen”/);
  check(await page.locator('.search-facet-button[data-facet="author"]').count() === 0, 'author facet counted unasked');
  await page.click('.search-count-authors');
  await page.waitForSelector('.search-facet-button[data-facet="author"]');
  const counted = await page.locator('.search-facet-button[data-facet="author"]').first().textContent();
  check(/Xiaowen Chu\s*18/.test(counted), `author facet after "Count authors" reads "${counted}"`);
  check(await page.evaluate(() => document.activeElement?.dataset.facet) === 'author', 'focus did not move to the author facet');
  await page.unroute('**/search/index.json');

  await page.goto(`${origin}/search/?q=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
  await waitStatus(page, /^No results for “<img src=x onerror=alert\(1\)>”/);
  check(await page.locator('.search-status img').count() === 0, 'query HTML was inserted as markup');

  check(!pageErrors.length, `page errors: ${pageErrors.join('; ')}`);
  console.log(`search.mjs: ok, ${checks} checks passed (${origin}, ${root})`);
} catch (error) {
  console.error(`search.mjs: FAILED: ${error.message}${pageErrors.length ? `\n  page errors: ${pageErrors.join("; ")}` : ""}`);
  process.exitCode = 1;
} finally {
  await browser.close();
  close();
}
