/**
 * Stands in, in the functions' bundles only (function-bundling.ts aliases the packages here), for
 * the AWS SDK's credential providers that cannot succeed in a Lambda sandbox: the shared config
 * and credentials files (fromIni), SSO (fromSSO), a credential process (fromProcess), a web
 * identity token file (fromTokenFile) and the EC2 instance metadata service. Lambda hands the
 * execution role's credentials to the function in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
 * AWS_SESSION_TOKEN (Lambda Developer Guide, "Defined runtime environment variables"), which the
 * SDK's default chain reads first; the sandbox has no profile files, token file or instance
 * metadata. Those providers, with the STS, SSO and sign-in clients they bring, were a quarter
 * of every bundle, parsed at every cold start.
 *
 * The SDK's chain itself stays (@aws-sdk/credential-provider-node): environment variables, then
 * each provider here declining so the chain goes on, then container credentials
 * (AWS_CONTAINER_CREDENTIALS_FULL_URI / _RELATIVE_URI, through @aws-sdk/credential-provider-http),
 * then the SDK's own "Could not load credentials from any providers".
 */

/** What the SDK's chain takes for "this provider has nothing, try the next one". */
function declines(provider: string): never {
  throw Object.assign(new Error(`${provider} is not in this function's bundle: a Lambda sandbox has nothing it could read.`), {
    name: 'CredentialsProviderError',
    tryNextLink: true,
  });
}

const unavailable =
  (provider: string) =>
  (_init?: unknown) =>
  async (): Promise<never> =>
    declines(provider);

// @aws-sdk/credential-provider-ini, -sso, -process and -web-identity.
export const fromIni = unavailable('fromIni');
export const fromSSO = unavailable('fromSSO');
export const fromProcess = unavailable('fromProcess');
export const fromTokenFile = unavailable('fromTokenFile');

// @smithy/credential-provider-imds, as the SDK's remote provider imports it: the container
// credentials variables' names (fromHttp serves both), and the instance metadata service.
export const ENV_CMDS_FULL_URI = 'AWS_CONTAINER_CREDENTIALS_FULL_URI';
export const ENV_CMDS_RELATIVE_URI = 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI';
export const fromContainerMetadata = unavailable('fromContainerMetadata');
export const fromInstanceMetadata = unavailable('fromInstanceMetadata');
