import { createReadStream, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const redocBundle = join(dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

/** Assets served from the installed npm packages: never a CDN. */
const ASSETS: Record<string, { path: string; type: string }> = {
  'swagger-ui.css': { path: join(swaggerDir, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { path: join(swaggerDir, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  'swagger-ui-standalone-preset.js': { path: join(swaggerDir, 'swagger-ui-standalone-preset.js'), type: 'text/javascript; charset=utf-8' },
  'redoc.standalone.js': { path: redocBundle, type: 'text/javascript; charset=utf-8' },
};

const SPEC_URL = '/api/openapi.json';

const swaggerPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API docs</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script></body></html>`;

const swaggerInit = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(SPEC_URL)}, dom_id: '#swagger-ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'BaseLayout', persistAuthorization: true });`;

const redocPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="${SPEC_URL}"></redoc>
<script src="/api/docs/assets/redoc.standalone.js"></script></body></html>`;

function send(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache' });
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
    res.writeHead(200, { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=86400' });
    createReadStream(asset.path).pipe(res);
  },
};
