/**
 * Options every AWS SDK client of the service shares. Endpoints are not set here: the SDK
 * reads AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_SNS itself, so the same code runs on AWS
 * and against the local emulators.
 *
 * The budget: a call gives up after 2 attempts of at most 2 s each (about 4 s). The longest
 * request, a create whose SNS call fails slowly and whose clean-up is slow too, makes two such
 * calls after a fast one, so it answers within about 9 s: inside the functions' 10 s timeout
 * (infra/operation-function.ts), with the error envelope and its clean-up done.
 */
export const clientOptions = {
  maxAttempts: 2,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true },
} as const;
