/**
 * The OpenAPI document read by client generators as an integrator runs them (issue 44):
 * openapi-typescript (with openapi-fetch) and @hey-api/openapi-ts generate types from the
 * document the local stack serves (buildOpenApiDocument for this configuration), and tsc checks
 * test/client-types/: every documented call compiles (*.calls.ts), and every call the service
 * refuses for its shape fails to, where its `@ts-expect-error` says (*.refused.ts; tsc reports an
 * unused one).
 */
import { rmSync } from 'node:fs';
import { buildOpenApiDocument } from '../../shared/contract/openapi-document';
import { config } from '../../shared/environment';
import { GENERATED, typeErrors, writeHeyApiTypes, writeOpenApiTypescript } from '../support/client-types';

const DIRECTORY = 'test/client-types/generated';

describe('types generated from the OpenAPI document', () => {
  beforeAll(async () => {
    rmSync(DIRECTORY, { recursive: true, force: true });
    const document = buildOpenApiDocument({ eventKinds: config.eventKinds, tokenUrl: 'http://127.0.0.1:3000/v6/authentication/oauth2/token' });
    await Promise.all([writeOpenApiTypescript(document, GENERATED(DIRECTORY).openapiTypescript), writeHeyApiTypes(document, GENERATED(DIRECTORY).heyApi)]);
  }, 60_000);

  it('compile every documented call, and refuse every call of the wrong shape where it is marked', () => {
    expect(
      typeErrors([
        'test/client-types/openapi-fetch.calls.ts',
        'test/client-types/openapi-fetch.refused.ts',
        'test/client-types/hey-api.calls.ts',
        'test/client-types/hey-api.refused.ts',
      ]),
    ).toEqual([]);
  }, 60_000);
});
