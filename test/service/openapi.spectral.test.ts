/**
 * The OpenAPI document linted by Spectral (issue 44): `spectral:oas` with no finding at all,
 * and the OWASP ruleset's rate-limit rules that apply (docs/api.md, "Linted by Spectral", judges
 * every OWASP finding: which apply and which do not, and why).
 */
import { Document, Spectral } from '@stoplight/spectral-core';
import * as Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import owaspModule from '@stoplight/spectral-owasp-ruleset';
import { buildOpenApiDocument } from '../../shared/contract/openapi-document';
import { config } from '../../shared/environment';

const owasp = ((owaspModule as unknown as { default?: typeof owaspModule }).default ?? owaspModule) as typeof owaspModule;
const document = buildOpenApiDocument({
  eventKinds: config.eventKinds,
  tokenUrl: 'http://127.0.0.1:3000/v6/authentication/oauth2/token',
  serverUrl: 'http://127.0.0.1:3000',
});

async function findings(ruleset: object): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset(ruleset as never);
  const results = await spectral.run(new Document(JSON.stringify(document, null, 2), Parsers.Json, 'openapi.json'));
  return results.map(({ code, path, message }) => `${String(code)} ${path.join('.')}: ${message}`);
}

describe('Spectral', () => {
  it('finds nothing with spectral:oas', async () => {
    expect(await findings({ extends: [[oas, 'recommended']] })).toEqual([]);
  }, 30_000);

  it('finds nothing with the OWASP ruleset\'s rules on 429 and Retry-After', async () => {
    // owasp:api4:2023-rate-limit (RateLimit-* headers on every 2XX and 4XX answer) is not met: API
    // Gateway's own 401, 403, 413, 431 and throttle 429 could never carry them (docs/api.md, "Linted by Spectral").
    const rules = ['owasp:api4:2023-rate-limit-retry-after', 'owasp:api4:2023-rate-limit-responses-429'];
    const all = await findings({ extends: [[owasp, 'all']] });
    expect(all.some((finding) => finding.startsWith('owasp:api4:2023-rate-limit '))).toBe(true);
    expect(all.filter((finding) => rules.some((rule) => finding.startsWith(`${rule} `)))).toEqual([]);
  }, 30_000);
});
