/**
 * Options every AWS SDK client of the service shares. Endpoints are not set here: the SDK
 * reads AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_SNS itself, so the same code runs on AWS
 * and against the local emulators. Timeouts keep a stalled dependency from holding a request
 * until the function's own timeout.
 */
export const clientOptions = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
} as const;
