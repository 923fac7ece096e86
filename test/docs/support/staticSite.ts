import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * The built file a site path names, as VitePress's `cleanUrls` writes them: `/guides/cli` is
 * `guides/cli.html`, `/contributing/` is `contributing/index.html`. Undefined when none is built.
 */
export function builtFile(root: string, path: string): string | undefined {
  const clean = normalize(decodeURIComponent(path)).replace(/^(\.\.(\/|\\|$))+/, '');
  const candidates = [clean, `${clean}.html`, join(clean, 'index.html')];
  for (const candidate of candidates) {
    const file = join(root, candidate);
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

/** A running static server for a built site; `url` has no trailing slash. */
export interface StaticSite {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `root` on 127.0.0.1 at a free port, as a static host with clean URLs would. */
export async function serveStatic(root: string): Promise<StaticSite> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const file = builtFile(root, path);
    const status = file ? 200 : 404;
    const served = file ?? join(root, '404.html');
    response.writeHead(status, {
      'content-type': TYPES[extname(served)] ?? 'application/octet-stream',
    });
    response.end(readFileSync(served));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
