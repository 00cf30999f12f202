import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** Every answer of the API is `{success, message, ...}` as JSON. */
export type Envelope = { success: boolean; message: string } & Record<string, unknown>;

export function jsonResponse(statusCode: number, body: Envelope, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

export function successResponse(payload: { message: string } & Record<string, unknown>, statusCode: 200 | 202 = 200) {
  return jsonResponse(statusCode, { success: true, ...payload });
}

/**
 * `details`: fields a refusal adds after the code, such as the `errors` of an invalid request;
 * `headers`: such as the Retry-After of an overload answer.
 */
export function errorResponse(
  statusCode: number,
  message: string,
  code: string,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return jsonResponse(statusCode, { success: false, message, code, ...details }, headers);
}
