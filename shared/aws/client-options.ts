/**
 * Options every AWS SDK client of the service shares. Endpoints are not set here: the SDK
 * reads AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_SNS itself, so the same code runs on AWS
 * and against the local emulators.
 *
 * The budget: a call gives up after 2 attempts of at most 1.5 s each (about 3 s). A request
 * that meets one failing or slow dependency ends within about 7 s (the longest: a create whose
 * CreateTopic and its clean-up both time out), inside the functions' 10 s timeout, with the
 * error envelope and its clean-up done. Only a dependency that answers every call just before
 * timing out, twice, could take a create past 9.5 s; middy then answers 503 and the clean-up
 * may not finish (see docs/design.md, "Known gaps").
 */
export const clientOptions = {
  maxAttempts: 2,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 1_500, throwOnRequestTimeout: true },
} as const;
