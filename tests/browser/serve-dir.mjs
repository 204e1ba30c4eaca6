// The static file server the browser scripts share: serves a built site's
// directory on loopback as a static host would. A directory path serves
// its index.html; one byte range (`bytes=a-b`) gets a 206, as static hosts
// answer the search index's range requests; a missing file, or a path
// outside the directory, gets the site's 404.html (or "not found") with
// status 404. No dependencies, so bench scripts can import it too.
//
//   const { origin, close } = await serveDir('/path/to/public');
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, extname, normalize, resolve, sep } from 'node:path';

const types = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** Serves `dir` on 127.0.0.1 at a free port: `{ origin, close }`. */
export async function serveDir(dir) {
  const base = resolve(dir);
  const server = createServer(async (req, res) => {
    try {
      let file = join(base, normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)));
      if (file !== base && !file.startsWith(base + sep)) throw new Error('outside');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      const type = types[extname(file)] ?? 'application/octet-stream';
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      if (range && Number(range[1]) <= Number(range[2]) && Number(range[1]) < body.length) {
        const end = Math.min(Number(range[2]), body.length - 1);
        res.writeHead(206, { 'content-type': type, 'content-range': `bytes ${range[1]}-${end}/${body.length}` });
        res.end(body.subarray(Number(range[1]), end + 1));
        return;
      }
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': types['.html'] });
      res.end(await readFile(join(base, '404.html')).catch(() => 'not found'));
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}
