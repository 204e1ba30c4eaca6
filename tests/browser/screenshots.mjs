// Screenshots of every page kind of a built site, at 1280x800 (desktop)
// and 390x844 (phone), as a reader's first screen shows them:
//
//   node tests/browser/screenshots.mjs PUBLIC_DIR OUT_DIR [PREFIX] [KIND=PATH...] [--dark]
//
// writes OUT_DIR/PREFIX<kind>-<desktop|phone>.png for the home page, the
// authors index, the first author, the first paper, the first year and
// category, the search page with results for the site's most common title
// word, the first content page and the 404 page; KIND=PATH shoots PATH as
// KIND instead (`paper=/papers/x/`) or as well (a new KIND). Uses Debian's chromium
// through playwright-core (tests/browser/node_modules, `npm ci` there).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import { serveDir } from './serve-dir.mjs';
import path from 'node:path';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--') && !a.includes('='));
const chosen = process.argv.slice(2).filter((a) => a.includes('=')).map((a) => a.split('='));
const dark = process.argv.includes('--dark');
const [root, out, prefix = ''] = args;
if (!root || !out) {
  console.error('usage: node screenshots.mjs PUBLIC_DIR OUT_DIR [PREFIX] [--dark]');
  process.exit(2);
}
const { origin: base, close } = await serveDir(root);

/** The first entry of a folder of the site, as a URL path. */
const first = (folder) => {
  const names = fs.readdirSync(path.join(root, folder), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'page').map((e) => e.name).sort();
  return names.length ? `/${folder}/${names[0]}/` : null;
};
const content = ['about', ...fs.readdirSync(root)].find((name) =>
  !['authors', 'papers', 'years', 'categories', 'search'].includes(name) &&
  fs.existsSync(path.join(root, name, 'index.html')));
const index = JSON.parse(fs.readFileSync(path.join(root, 'corpus.json'), 'utf8'));
const words = new Map();
for (const paper of index.papers || []) {
  for (const word of (paper.title || '').toLowerCase().match(/[a-z]{5,}/g) || []) {
    words.set(word, (words.get(word) || 0) + 1);
  }
}
const word = [...words].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] || 'learning';
const pages = [
  ['home', '/'],
  ['authors', '/authors/'],
  ['author', first('authors')],
  ['paper', first('papers')],
  ['year', first('years')],
  ['category', first('categories')],
  ['search', `/search/?q=${word}`],
  ['content', content ? `/${content}/` : null],
  ['404', '/no-such-page/'],
].filter(([kind]) => !chosen.some(([k]) => k === kind)).concat(chosen).filter(([, url]) => url);

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
fs.mkdirSync(out, { recursive: true });
for (const [device, width, height] of [['desktop', 1280, 800], ['phone', 390, 844]]) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme: dark ? 'dark' : 'light' });
  for (const [kind, url] of pages) {
    const page = await context.newPage();
    await page.goto(base + url, { waitUntil: 'networkidle' });
    if (kind === 'search') await page.waitForSelector('.search-result', { timeout: 5000 }).catch(() => {});
    await page.evaluate(() => document.fonts.ready);
    const file = path.join(out, `${prefix}${kind}-${device}${dark ? '-dark' : ''}.png`);
    await page.screenshot({ path: file });
    console.log(`${file}  ${url}`);
    await page.close();
  }
  await context.close();
}
await browser.close();
close();
