/**
 * The OpenAPI document linted by Spectral (issue 44): `spectral:oas` with no finding at all,
 * and the OWASP ruleset's rate-limit rules with none either (docs/api.md, "Linted by Spectral", judges
 * every other OWASP finding: which apply and which do not, and why).
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

async function findingsOf(linted: object, ruleset: object): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset(ruleset as never);
  const results = await spectral.run(new Document(JSON.stringify(linted, null, 2), Parsers.Json, 'openapi.json'));
  return results.map(({ code, path, message }) => `${String(code)} ${path.join('.')}: ${message}`);
}

const findings = (ruleset: object) => findingsOf(document, ruleset);

describe('Spectral', () => {
  it('finds nothing with spectral:oas', async () => {
    expect(await findings({ extends: [[oas, 'recommended']] })).toEqual([]);
  }, 30_000);

  it('finds nothing with the OWASP ruleset\'s rate-limit rules: RateLimit-* on every 2XX and 4XX, 429 everywhere with Retry-After', async () => {
    const rules = ['owasp:api4:2023-rate-limit', 'owasp:api4:2023-rate-limit-retry-after', 'owasp:api4:2023-rate-limit-responses-429'];
    const all = await findings({ extends: [[owasp, 'all']] });
    expect(all.filter((finding) => rules.some((rule) => finding.startsWith(`${rule} `)))).toEqual([]);
    // The rules ran: the ruleset still has them, and it finds other things (docs/api.md judges those).
    expect(Object.keys((owasp as unknown as { rules: object }).rules)).toEqual(expect.arrayContaining(rules));
    expect(all.length).toBeGreaterThan(0);
  }, 30_000);

  it('finds the missing RateLimit-* headers on a document without them: the rule is not vacuous', async () => {
    const bare = JSON.parse(JSON.stringify(document));
    const answer = bare.paths[Object.keys(bare.paths)[0]!];
    const first = answer[Object.keys(answer)[0]!];
    delete first.responses['200'].headers;
    const found = await findingsOf(bare, { extends: [[owasp, 'all']] });
    expect(found.filter((finding) => finding.startsWith('owasp:api4:2023-rate-limit '))).toHaveLength(1);
  }, 30_000);
});
