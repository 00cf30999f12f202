/**
 * The document of a deployment: `cdk synth` (infra/aws/app.ts) writes it to `cdk.out/openapi.json`
 * beside the template, for the stack's settings: its token endpoint is the issuer's, its event
 * catalog the stack's `eventKinds`. It names no server: the API's URL is known once deployed
 * (the ApiUrl output). An output file rather than a route, so the API keeps only JWT-authorized
 * routes and no function of its own serves a file that is the same for every caller.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOKEN_PATH } from '../../shared/contract/token-endpoint';
import { buildOpenApiDocument } from '../../shared/contract/openapi-document';
import type { DeploymentSettings } from './deployment-settings';

export const STACK_DOCUMENT_FILE = 'openapi.json';

export function writeStackOpenApiDocument(outdir: string, settings: DeploymentSettings): string {
  const document = buildOpenApiDocument({
    eventKinds: settings.eventKinds,
    tokenUrl: settings.jwtIssuer.replace(/\/+$/, '') + TOKEN_PATH,
  });
  mkdirSync(outdir, { recursive: true });
  const file = join(outdir, STACK_DOCUMENT_FILE);
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}
