import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const redocBundle = join(dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

/**
 * ReDoc's sidebar footer shows a logo from cdn.redoc.ly (no option turns it off). An image
 * that fails to load makes ReDoc drop it, so the URL becomes an empty data: URL: no request
 * leaves the browser.
 */
const REDOC_CDN_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg/g;
const withoutCdnLogo = (bundle: string): string => bundle.replace(REDOC_CDN_LOGO, 'data:,');

interface Asset {
  path: string;
  type: string;
  /** applied once to the file's text, which is then served from memory */
  rewrite?: (text: string) => string;
}

/** Assets served from the installed npm packages: never a CDN. */
const ASSETS: Record<string, Asset> = {
  'swagger-ui.css': { path: join(swaggerDir, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { path: join(swaggerDir, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  'swagger-ui-standalone-preset.js': { path: join(swaggerDir, 'swagger-ui-standalone-preset.js'), type: 'text/javascript; charset=utf-8' },
  'redoc.standalone.js': { path: redocBundle, type: 'text/javascript; charset=utf-8', rewrite: withoutCdnLogo },
};

const rewritten = new Map<string, Buffer>();

function sendAsset(res: ServerResponse, asset: Asset): void {
  const headers = { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' };
  if (!asset.rewrite) {
    res.writeHead(200, headers);
    createReadStream(asset.path).pipe(res);
    return;
  }
  let body = rewritten.get(asset.path);
  if (!body) rewritten.set(asset.path, (body = Buffer.from(asset.rewrite(readFileSync(asset.path, 'utf8')))));
  res.writeHead(200, { ...headers, 'Content-Length': body.length });
  res.end(body);
}

const SPEC_URL = '/api/openapi.json';

/**
 * The viewers may load nothing from elsewhere: ReDoc's sidebar footer, for one, hard-codes a
 * logo on cdn.redoc.ly, which this keeps the browser from fetching. Inline styles are needed by
 * both viewers; ReDoc's search runs in a blob: worker.
 */
const PAGE_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "worker-src 'self' blob:", "object-src 'none'", "base-uri 'none'", "form-action 'self'",
].join('; ');

// an empty icon, so the browser does not ask the API for /favicon.ico
const NO_FAVICON = '<link rel="icon" href="data:,">';

const swaggerPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API docs</title>${NO_FAVICON}
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script></body></html>`;

const swaggerInit = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(SPEC_URL)}, dom_id: '#swagger-ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'BaseLayout', persistAuthorization: true });`;

const redocPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API reference</title>${NO_FAVICON}
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="${SPEC_URL}"></redoc>
<script src="/api/docs/assets/redoc.standalone.js"></script></body></html>`;

function send(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache', 'Content-Security-Policy': PAGE_POLICY, 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

export const docsRoutes = {
  'GET /api/docs': (_req: IncomingMessage, res: ServerResponse) => send(res, 'text/html; charset=utf-8', swaggerPage),
  'GET /api/docs/init.js': (_req: IncomingMessage, res: ServerResponse) => send(res, 'text/javascript; charset=utf-8', swaggerInit),
  'GET /api/redoc': (_req: IncomingMessage, res: ServerResponse) => send(res, 'text/html; charset=utf-8', redocPage),
  'GET /api/docs/assets/:file': (req: IncomingMessage & { $params?: { file?: string } }, res: ServerResponse) => {
    const name = (req.$params?.file ?? req.url?.split('/').pop() ?? '').split('?')[0];
    const asset = ASSETS[name];
    if (!asset || !existsSync(asset.path)) throw ERRORS.NOT_FOUND(`No documentation asset '${name}'`);
    sendAsset(res, asset);
  },
};
