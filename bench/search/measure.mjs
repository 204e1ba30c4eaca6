// Measures what a first-time visitor's browser transfers to answer a search
// query, for Vellum's search page and for Pagefind, in headless Debian
// chromium driven by playwright-core. Helper of bench/search_bench.py.
//
// Usage: node measure.mjs PUBLIC_DIR ENGINE QUERY...
//   ENGINE vellum:   loads /search/?q=QUERY and waits until the status line
//                    shows a count or "No results" (first page of results).
//   ENGINE pagefind: loads /pagefind-test/?q=QUERY, a page that imports
//                    /pagefind/pagefind.js, runs pagefind.search(QUERY) and
//                    loads the data of the first 10 results.
// Prints one JSON object per query on stdout.
//
// PUBLIC_DIR is served on 127.0.0.1 by the small static server below, which
// gzips .html/.css/.js/.mjs/.json responses when the request accepts gzip
// (as static hosts do) and serves everything else, including Pagefind's
// pre-compressed .pf_* and wasm files, as stored. Every query runs in a
// fresh browser context (empty cache). Every request but the HTML document
// and its stylesheet is counted: the search code (JS, wasm) and the index
// data. For each, "transferred" is the encoded body plus the response
// headers (as DevTools shows it; header sizes from Playwright's
// request.sizes(), i.e. CDP's Network events) and "decoded" the body after
// HTTP content decoding. Body bytes are taken from the server's log of what it sent,
// because Chromium reports 0 body bytes for a Web Worker's script
// (Pagefind's pagefind-worker.js); for every other file the two agree, and
// any disagreement is listed in cdpMismatch.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, extname, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const [root, engine, ...queries] = process.argv.slice(2);
if (!root || !['vellum', 'vellum-authors', 'pagefind'].includes(engine) || !queries.length) {
  console.error('usage: node measure.mjs PUBLIC_DIR vellum|vellum-authors|pagefind QUERY...');
  process.exit(2);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.xml': 'application/xml',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
};
const COMPRESSIBLE = new Set(['.html', '.css', '.js', '.mjs', '.json']);
const gzipped = new Map(); // file -> its gzip (zlib's default level 6), made once
let serverLog = [];
/** The server log's key for a request: its path, and its range if any. */
const logKey = (path, range) => (range ? `${path}#${range}` : path);

const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (path.includes('..')) { res.writeHead(400).end(); return; }
  let file = join(root, path);
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const raw = await readFile(file);
    const ext = extname(file);
    const headers = { 'content-type': TYPES[ext] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
    let body = raw;
    if (COMPRESSIBLE.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      if (!gzipped.has(file)) gzipped.set(file, gzipSync(raw, { level: 6 }));
      body = gzipped.get(file);
      headers['content-encoding'] = 'gzip';
      headers.vary = 'Accept-Encoding';
    }
    // One byte range of an uncompressed file, as static hosts answer
    // Vellum's metadata-pack requests.
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    let status = 200;
    if (range && !headers['content-encoding'] && Number(range[1]) < raw.length) {
      const end = Math.min(Number(range[2]), raw.length - 1);
      body = raw.subarray(Number(range[1]), end + 1);
      headers['content-range'] = `bytes ${range[1]}-${end}/${raw.length}`;
      status = 206;
    }
    headers['content-length'] = body.length;
    res.writeHead(status, headers);
    res.end(body);
    serverLog.push({ path: logKey(path, req.headers.range), status, sent: body.length, raw: body.length });
  } catch {
    res.writeHead(404, { 'content-type': TYPES['.html'] }).end('not found');
    serverLog.push({ path: logKey(path, req.headers.range), status: 404, sent: 9, raw: 9 });
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/** Page-side check that the first page of results is shown; returns a summary or null. */
const DONE = {
  vellum: () => {
    const status = document.querySelector('.search-status')?.textContent.trim();
    const list = document.querySelector('#search-results');
    if (!status || !list || list.hasAttribute('aria-busy')) return null;
    const items = [...list.querySelectorAll('li')];
    const match = status.match(/^([\d,]+) results?/);
    return {
      status,
      error: status.startsWith('Search is unavailable') ? status : null,
      total: match ? Number(match[1].replace(/,/g, '')) : 0,
      shown: items.length,
      titles: items.slice(0, 3).map((li) => li.querySelector('.search-hit-title')?.textContent ?? ''),
    };
  },
  pagefind: () => window.pagefindDone ?? null,
};
DONE['vellum-authors'] = DONE.vellum;
const PATH = { vellum: '/search/', 'vellum-authors': '/search/', pagefind: '/pagefind-test/' };

async function measure(query) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r));
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  serverLog = [];
  const started = Date.now();
  await page.goto(`${origin}${PATH[engine]}?q=${encodeURIComponent(query)}`, { waitUntil: 'load' });
  const handle = await page.waitForFunction(DONE[engine], null, { timeout: 120_000, polling: 20 });
  const outcome = await handle.jsonValue();
  if (engine === 'vellum-authors' && outcome.total && await page.locator('.search-count-authors').count()) {
    // The author facet on demand: its button, then the counted facet.
    await page.click('.search-count-authors');
    await page.waitForSelector('.search-facet-button[data-facet="author"]', { timeout: 120_000 });
  }
  const elapsed = Date.now() - started;
  // Let late requests (prefetches, worker fetches) settle before counting.
  let seen = -1;
  while (seen !== requests.length) {
    seen = requests.length;
    await page.waitForTimeout(300);
    await Promise.all(requests.map((r) => r.response().then((res) => res?.finished())));
  }
  const sent = new Map(); // path -> the server's log entries, in request order
  for (const entry of serverLog) sent.set(entry.path, [...(sent.get(entry.path) ?? []), entry]);
  const files = [];
  for (const r of requests) {
    const url = new URL(r.url());
    const path = decodeURIComponent(url.pathname);
    const response = await r.response();
    const sizes = await r.sizes();
    const server = sent.get(logKey(path, r.headers().range))?.shift();
    let decoded;
    try { decoded = (await response.body()).length; } catch { decoded = server?.raw ?? 0; }
    const type = r.resourceType();
    files.push({
      path,
      type,
      status: response?.status() ?? 0,
      counted: !(type === 'document' || type === 'stylesheet' || path === '/favicon.ico'),
      headers: sizes.responseHeadersSize,
      body: server?.sent ?? sizes.responseBodySize,
      cdpBody: sizes.responseBodySize,
      decoded,
    });
  }
  // Requests the server answered but the browser did not report (none so
  // far but Chromium's own /favicon.ico, which is not counted).
  for (const [key, rest] of sent) {
    const path = key.split('#')[0];
    if (path === '/favicon.ico') continue;
    for (const e of rest) files.push({ path, type: 'unseen', status: e.status, counted: true, headers: 0, body: e.sent, cdpBody: 0, decoded: e.raw });
  }
  await context.close();
  const counted = files.filter((f) => f.counted);
  const sum = (list, key) => list.reduce((n, f) => n + f[key], 0);
  return {
    engine,
    query,
    ms: elapsed,
    outcome,
    errors,
    requests: counted.length,
    transferred: sum(counted, 'body') + sum(counted, 'headers'),
    body: sum(counted, 'body'),
    decoded: sum(counted, 'decoded'),
    cdpMismatch: counted.filter((f) => f.cdpBody !== f.body).map((f) => `${f.path}: CDP ${f.cdpBody}, server ${f.body}`),
    failed: files.filter((f) => f.status !== 200 && f.status !== 206).map((f) => `${f.status} ${f.path}`),
    files,
  };
}

try {
  for (const query of queries) console.log(JSON.stringify(await measure(query)));
} finally {
  await browser.close();
  server.close();
}
