/**
 * `npm run openapi`: writes the OpenAPI document (openapi-document.ts) for the configuration of
 * this environment (EVENT_KINDS) to `openapi.json` at the repository root, or to `--out`.
 *
 *   npm run openapi -- [--out FILE] [--issuer URL] [--server URL]
 *
 * `--issuer`: the tokens' issuer, whose token endpoint is `<issuer>/v6/authentication/oauth2/token`
 * (default: the one of `npm start`, http://127.0.0.1:3000). `--server`: the API's base URL
 * (default: the same; give the stack's ApiUrl output for AWS).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { TOKEN_PATH } from './token-endpoint';
import { buildOpenApiDocument } from './openapi-document';

export const DEFAULT_DOCUMENT_PATH = 'openapi.json';
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: DEFAULT_DOCUMENT_PATH },
    issuer: { type: 'string', default: 'http://127.0.0.1:3000' },
    server: { type: 'string' },
  },
});

// The catalog is read, and checked, as the functions read it; the configuration requires a
// table name, which the document does not depend on.
const { eventKinds } = loadConfig({ ...process.env, TABLE_NAME: process.env.TABLE_NAME || 'webhook-subscriptions' });

const issuer = values.issuer.replace(/\/+$/, '');
const document = buildOpenApiDocument({ eventKinds, tokenUrl: issuer + TOKEN_PATH, serverUrl: values.server ?? issuer });
const out = resolve(PROJECT_ROOT, values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
console.log(`OpenAPI document written to ${relative(process.cwd(), out) || out} (${Object.keys(document.paths).length} paths).`);
