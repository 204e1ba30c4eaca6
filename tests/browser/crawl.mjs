// Serves a built site under a sub-path on loopback, as a host serving a
// project site would (`https://lab.github.io/papers/`), and follows every
// internal link and resource from the home page: prints one line per
// broken link (page, link, status) and exits 1 if there is any, else
// prints the number of URLs fetched.
// Usage: node tests/browser/crawl.mjs OUTPUT_DIR /sub/path/
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize, resolve, sep } from 'node:path';

const [dir, prefix] = process.argv.slice(2);
const root = resolve(dir);
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  try {
    if (!path.startsWith(prefix)) throw new Error('outside the sub-path');
    let file = join(root, normalize(path.slice(prefix.length)));
    if (file !== root && !file.startsWith(root + sep)) throw new Error('outside');
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    res.writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html' : 'application/octet-stream' });
    res.end(await readFile(file));
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;
const seen = new Set();
const queue = [new URL(prefix, origin).href];
const broken = [];
const links = (html) =>
  [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) =>
    m[1].replaceAll('&amp;', '&').replaceAll('&quot;', '"'));
while (queue.length > 0) {
  const url = queue.shift();
  const response = await fetch(url);
  if (!response.ok) continue;
  if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) continue;
  const html = await response.text();
  for (const link of links(html)) {
    const target = new URL(link, url);
    if (target.origin !== origin) continue;
    target.hash = '';
    if (seen.has(target.href)) continue;
    seen.add(target.href);
    const head = await fetch(target.href);
    if (!head.ok) broken.push(`${url} ${link} ${head.status}`);
    else queue.push(target.href);
    await head.arrayBuffer();
  }
}
server.close();
if (broken.length > 0) {
  console.log(broken.join('\n'));
  process.exit(1);
}
console.log(`${seen.size} URLs fetched, none broken`);
