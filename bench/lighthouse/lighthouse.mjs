// Lighthouse (12.x, default mobile preset) on the bundled site's home,
// author and paper pages, each run three times in Debian's chromium;
// prints every run's category scores and the median of each.
//
//   cargo build --release && cd bench/lighthouse && npm ci && node lighthouse.mjs [RUNS]
//
// The site is built with its base URL set to the loopback server's, so
// canonical links and the sitemap name the pages Lighthouse loads. Goal
// (issue 23): accessibility, best practices and SEO 100, performance at
// least 95. Run it on a quiet machine: performance is timed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serveDir } from '../../tests/browser/serve-dir.mjs';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';

const runs = Number(process.argv[2] ?? 3);
const root = resolve(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'vellum-lighthouse-'));
const { origin, close } = await serveDir(out);
execFileSync(join(root, 'target/release/vellum'), ['build', '--root', root, '--quiet', '--output-dir', out, '--base-url', `${origin}/`], { stdio: ['ignore', 'ignore', 'ignore'] });

const pages = {
  home: '/',
  author: '/authors/chuan-wu/',
  paper: '/papers/echo-simulating-distributed-training-at-scale/',
};
const categories = ['performance', 'accessibility', 'best-practices', 'seo'];
const chrome = await chromeLauncher.launch({ chromePath: '/usr/bin/chromium', chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  for (const [name, path] of Object.entries(pages)) {
    const scores = Object.fromEntries(categories.map((c) => [c, []]));
    for (let run = 0; run < runs; run += 1) {
      const result = await lighthouse(origin + path, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: categories });
      const lhr = result.lhr;
      if (name === 'home' && run === 0) {
        console.log(`Lighthouse ${lhr.lighthouseVersion}, ${lhr.configSettings.formFactor}, ${lhr.configSettings.throttlingMethod} throttling, ${lhr.environment.hostUserAgent.match(/Chrome\/[\d.]+/)}`);
      }
      for (const c of categories) scores[c].push(Math.round(lhr.categories[c].score * 100));
      const failed = Object.values(lhr.audits).filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary').map((a) => a.id);
      console.log(`${name} run ${run + 1}: ${categories.map((c) => `${c} ${scores[c].at(-1)}`).join(', ')}${failed.length ? `; failed: ${failed.join(', ')}` : ''}`);
    }
    console.log(`${name} median of ${runs}: ${categories.map((c) => `${c} ${median(scores[c])}`).join(', ')}`);
  }
} finally {
  await chrome.kill();
  close();
  rmSync(out, { recursive: true, force: true });
}
