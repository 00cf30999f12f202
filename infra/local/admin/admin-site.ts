/**
 * What `npm start` serves beside the API, with no authorizer: the OpenAPI document at
 * `GET /openapi.json`, the admin page at `GET /admin/` (plain ES modules and CSS from
 * admin/, read from the repository at each request: no build step, no CDN), and the project's
 * pages rendered as HTML (markdown.ts), so the admin page's link to docs/receiving.md opens a
 * readable page: every docs/*.md at `GET /docs/<page>.md`, the decision records at
 * `GET /docs/decisions/<record>.md`, and the README at `GET /README.md`, so that links between them work.
 * The page reads the catalog, the protocols, its API paths and the token endpoint from the
 * document, so it follows the operations table and the configuration like everything else.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { adminPageContentSecurityPolicy } from '../../../shared/contract/admin-page-policy';
import { sendJson, sendResponse } from '../gateway/http-body';
import { markdownPage } from './markdown';

export const OPENAPI_PATH = '/openapi.json';
export const ADMIN_PATH = '/admin/';
/** The page's settings (admin/settings.js reads them); on AWS the stack writes the same file at deploy. */
export const ADMIN_SETTINGS_PATH = `${ADMIN_PATH}settings.json`;
/** The client id of the page at the local authorization endpoint (a public client: no secret). */
export const LOCAL_PAGE_CLIENT_ID = 'webhooks-admin-page';
/** How to receive webhooks: the admin page's create form points integrators at it. */
export const RECEIVING_DOC_PATH = '/docs/receiving.md';

const REPOSITORY = new URL('../../../', import.meta.url);
/**
 * The files served, by URL path, from the repository: the page, its stylesheets and icon, and
 * every ES module of admin/ (app.js and the modules it imports, whatever they are split into);
 * nothing else under /admin/ or /docs/ is.
 */
function siteFiles(): Record<string, { file: string; contentType: string }> {
  const files: Record<string, { file: string; contentType: string }> = {
    [ADMIN_PATH]: { file: 'admin/index.html', contentType: 'text/html; charset=utf-8' },
    [`${ADMIN_PATH}admin.css`]: { file: 'admin/admin.css', contentType: 'text/css; charset=utf-8' },
    [`${ADMIN_PATH}favicon.svg`]: { file: 'admin/favicon.svg', contentType: 'image/svg+xml' },
    [`${ADMIN_PATH}docs.css`]: { file: 'admin/docs.css', contentType: 'text/css; charset=utf-8' },
  };
  for (const name of readdirSync(fileURLToPath(new URL('admin/', REPOSITORY)))) {
    if (/^[a-z0-9-]+\.js$/.test(name)) files[`${ADMIN_PATH}${name}`] = { file: `admin/${name}`, contentType: 'text/javascript; charset=utf-8' };
  }
  return files;
}

/**
 * The markdown pages served as HTML, by URL path: the README, docs/*.md and the decision records
 * (docs/decisions/*.md, their index among them), as they are now in the repository.
 */
function documentationPages(): Record<string, string> {
  const pages: Record<string, string> = { '/README.md': 'README.md' };
  for (const folder of ['docs/', 'docs/decisions/']) {
    for (const name of readdirSync(fileURLToPath(new URL(folder, REPOSITORY)))) {
      if (/^([a-z0-9-]+|README)\.md$/.test(name)) pages[`/${folder}${name}`] = `${folder}${name}`;
    }
  }
  return pages;
}

// Everything the page loads or calls comes from this origin; nothing inline, nothing framed.
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
} as const;

function onlyGet(listener: (request: IncomingMessage, response: ServerResponse) => Promise<void> | void): RequestListener {
  return (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendJson(request, response, 405, { message: 'Method Not Allowed' }, { allow: 'GET, HEAD' });
      return;
    }
    Promise.resolve(listener(request, response)).catch(() => sendJson(request, response, 500, { message: 'Internal Server Error' }));
  };
}

/**
 * The routes, by exact path, for the gateway's `publicRoutes`. The page's own files carry the
 * policy CloudFront gives them on AWS, with `frameAncestors` the origins that may embed it.
 */
export function adminSiteRoutes(openApiDocument: unknown, pageSettings: object, frameAncestors: readonly string[] = []): Record<string, RequestListener> {
  const pageHeaders = { ...PAGE_HEADERS, 'content-security-policy': adminPageContentSecurityPolicy({ connectTo: [], frameAncestors }) };
  const documentText = JSON.stringify(openApiDocument, null, 2);
  const json = (text: string) => onlyGet((request, response) =>
    sendResponse(request, response, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, text),
  );
  const routes: Record<string, RequestListener> = {
    [OPENAPI_PATH]: json(documentText),
    [ADMIN_SETTINGS_PATH]: json(JSON.stringify(pageSettings, null, 2)),
    // The page's relative module URLs need the trailing slash.
    '/admin': onlyGet((request, response) => sendResponse(request, response, 308, { location: ADMIN_PATH })),
  };
  for (const [path, { file, contentType }] of Object.entries(siteFiles())) {
    routes[path] = onlyGet(async (request, response) => {
      const content = await readFile(fileURLToPath(new URL(file, REPOSITORY)));
      sendResponse(request, response, 200, { 'content-type': contentType, ...pageHeaders }, content);
    });
  }
  for (const [path, file] of Object.entries(documentationPages())) {
    routes[path] = onlyGet(async (request, response) => {
      const markdown = await readFile(fileURLToPath(new URL(file, REPOSITORY)), 'utf8');
      const html = markdownPage(markdown, `${ADMIN_PATH}docs.css`);
      sendResponse(request, response, 200, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS }, html);
    });
  }
  return routes;
}
