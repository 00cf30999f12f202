/**
 * Holds the API's answers to the OpenAPI document: the contract suites (support/api.ts) and the
 * local-stack suites (support/local-stack-client.ts) pass every answer they receive through
 * `expectDocumentedAnswer`, which throws, failing the test, when the document lists no such
 * status for the operation or the body does not match that status's schema (a field the
 * document lacks included: its response schemas are strict). ajv does the checking.
 *
 * The document is built for the environment the handlers run with (the event kinds of
 * EVENT_KINDS), the way the local stack builds the one it serves.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import { buildOpenApiDocument, documentOperationId } from '../../infra/openapi/document';
import { matchRoute } from '../../infra/local/gateway-routes';
import { config } from '../../shared/environment';
import { type Operation, type OperationId, operationById } from '../../shared/operations';

// ajv is CommonJS: under jest's native ESM its default export arrives as the module object.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: typeof Ajv2020Module }).default ?? Ajv2020Module) as typeof Ajv2020Module;

const DOCUMENT_ID = 'openapi.json';

/** The document the answers are held to (its token URL is immaterial here). */
export const openApiDocument = buildOpenApiDocument({
  eventKinds: config.eventKinds,
  tokenUrl: 'https://auth.example.test/v6/authentication/oauth2/token',
});

// Examples and descriptions are annotations to ajv; `strict: false` lets it ignore the
// document's non-schema parts around the schemas it is asked for.
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(openApiDocument, DOCUMENT_ID);

/** A JSON Pointer token (RFC 6901). */
const pointerToken = (text: string) => text.replaceAll('~', '~0').replaceAll('/', '~1');

export interface AnswerProblem {
  /** Which operation and status, for the message. */
  readonly where: string;
  readonly problem: string;
}

/**
 * What is wrong with an answer of `operation` (under path prefix `prefixIndex`), or undefined
 * when the document lists its status and its body matches.
 */
export function undocumentedAnswer(operation: Operation, prefixIndex: number, status: number, body: unknown): AnswerProblem | undefined {
  const path = operation.paths[prefixIndex]!;
  const method = operation.method.toLowerCase();
  const where = `${documentOperationId(operation, prefixIndex)} (${operation.method} ${path}) answered ${status}`;
  const responses = openApiDocument.paths[path]?.[method]?.responses ?? {};
  if (!(String(status) in responses)) {
    return { where, problem: `the document lists only ${Object.keys(responses).join(', ')} for it` };
  }
  const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema'].map(pointerToken).join('/');
  const validate = ajv.getSchema(`${DOCUMENT_ID}#/${pointer}`);
  if (!validate) return { where, problem: 'the document has no JSON schema for it' };
  if (validate(body)) return undefined;
  return { where, problem: `its body does not match the document: ${ajv.errorsText(validate.errors)}; body ${JSON.stringify(body)}` };
}

function fail(found: AnswerProblem): never {
  throw new Error(`Undocumented answer: ${found.where}, but ${found.problem}`);
}

/** Throws unless the document lists this answer of a handler called directly (support/api.ts). */
export function expectDocumentedAnswer(operationId: OperationId, prefixIndex: number, status: number, body: unknown): void {
  const found = undocumentedAnswer(operationById(operationId), prefixIndex, status, body);
  if (found) fail(found);
}

/**
 * Throws unless the document lists this answer to an HTTP request. Requests that match no
 * route (the gateway's 404) concern no operation and pass.
 */
export function expectDocumentedHttpAnswer(method: string, path: string, status: number, body: unknown): void {
  const rawPath = path.split('?', 1)[0]!;
  const match = matchRoute(method, rawPath);
  if (!match) return;
  const prefixIndex = match.route.operation.paths.indexOf(match.route.path);
  const found = undocumentedAnswer(match.route.operation, prefixIndex, status, body);
  if (found) fail(found);
}
