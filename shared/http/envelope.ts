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

export function successResponse(payload: { message: string } & Record<string, unknown>) {
  return jsonResponse(200, { success: true, ...payload });
}

export function errorResponse(statusCode: number, message: string, code: string, headers: Record<string, string> = {}) {
  return jsonResponse(statusCode, { success: false, message, code }, headers);
}
