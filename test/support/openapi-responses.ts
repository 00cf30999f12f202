/**
 * Holds the API's answers to the OpenAPI document: the contract suites (support/api.ts) and the
 * local-stack suites (support/local-stack-client.ts) pass every answer they receive through
 * `expectDocumentedAnswer` / `expectDocumentedHttpAnswer`, which throw, failing the test, when
 * the document lists no such status for the operation, the body does not match that status's
 * schema (a field the document lacks included: its response schemas are strict), or a header the
 * document declares for it (Retry-After, RateLimit-*) is missing where required, sent where not
 * declared, or not of its schema. ajv does the checking.
 *
 * The document is built, for the environment the handlers run with (the event kinds of
 * EVENT_KINDS), on first use and not when this module loads: the request schemas it renders
 * read the service configuration once, when first imported, and a local-stack suite sets that
 * configuration only when its stack starts.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import { matchRoute } from '../../infra/local/gateway/routes';
import { type Operation, type OperationId, operationById } from '../../shared/operations';

// ajv is CommonJS: under jest's native ESM its default export arrives as the module object.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: typeof Ajv2020Module }).default ?? Ajv2020Module) as typeof Ajv2020Module;

const DOCUMENT_ID = 'openapi.json';

export interface AnswerProblem {
  /** Which operation and status, for the message. */
  readonly where: string;
  readonly problem: string;
}

export interface DocumentedAnswers {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is plain JSON
  readonly document: any;
  /**
   * What is wrong with an answer of `operation` (under path prefix `prefixIndex`), or undefined
   * when the document lists its status and its body matches.
   */
  undocumentedAnswer(operation: Operation, prefixIndex: number, status: number, body: unknown, headers?: AnswerHeaders): AnswerProblem | undefined;
}

/** An answer's headers, by lower-case name (an HTTP answer's Headers, or a handler's result headers). */
export type AnswerHeaders = Headers | Record<string, unknown>;

/** The headers the document declares on answers, by lower-case name: only these are held to it. */
const DECLARED_HEADERS = ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

/** `format: date-time` (RFC 3339): the document's times, as the service writes them (toISOString). */
export const isDateTime = (text: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i.test(text) && !Number.isNaN(Date.parse(text));

/** A JSON Pointer token (RFC 6901). */
const pointerToken = (text: string) => text.replaceAll('~', '~0').replaceAll('/', '~1');

async function loadDocumentedAnswers(): Promise<DocumentedAnswers> {
  const [{ buildOpenApiDocument, documentOperationId }, { config }] = await Promise.all([
    import('../../shared/contract/openapi-document'),
    import('../../shared/environment'),
  ]);
  // Its token URL is immaterial here.
  const document = buildOpenApiDocument({ eventKinds: config.eventKinds, tokenUrl: 'https://auth.example.test/v6/authentication/oauth2/token' });
  // Examples and descriptions are annotations to ajv; `strict: false` lets it ignore the
  // document's non-schema parts around the schemas it is asked for.
  const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { 'date-time': isDateTime } });
  ajv.addSchema(document, DOCUMENT_ID);

  return {
    document,
    undocumentedAnswer(operation, prefixIndex, status, body, headers) {
      const path = operation.paths[prefixIndex]!;
      const method = operation.method.toLowerCase();
      const where = `${documentOperationId(operation, prefixIndex)} (${operation.method} ${path}) answered ${status}`;
      const responses = document.paths[path]?.[method]?.responses ?? {};
      if (!(String(status) in responses)) {
        return { where, problem: `the document lists only ${Object.keys(responses).join(', ')} for it` };
      }
      const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema']
        .map(pointerToken)
        .join('/');
      const validate = ajv.getSchema(`${DOCUMENT_ID}#/${pointer}`);
      if (!validate) return { where, problem: 'the document has no JSON schema for it' };
      if (!validate(body)) {
        return { where, problem: `its body does not match the document: ${ajv.errorsText(validate.errors)}; body ${JSON.stringify(body)}` };
      }
      return headers === undefined ? undefined : headerProblem(document, responses[String(status)], headers, where);
    },
  };
}

/** The first way `headers` disagree with the headers `response` declares (each by its own schema, an integer here). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is plain JSON
function headerProblem(document: any, response: any, headers: AnswerHeaders, where: string): AnswerProblem | undefined {
  const valueOf = (name: string) => (headers instanceof Headers ? (headers.get(name) ?? undefined) : (headers[name] as string | undefined));
  const declared = new Map<string, { required?: boolean; schema: { minimum?: number; maximum?: number } }>(
    Object.entries(response.headers ?? {}).map(([name, header]) => {
      const ref = (header as { $ref?: string }).$ref;
      return [name.toLowerCase(), ref ? document.components.headers[ref.split('/').pop()!] : header] as const;
    }),
  );
  for (const name of DECLARED_HEADERS) {
    const value = valueOf(name);
    const header = declared.get(name);
    if (value === undefined) {
      if (header?.required) return { where, problem: `it has no ${name} header, which the document requires` };
      continue;
    }
    if (!header) return { where, problem: `it has a ${name} header (${value}) the document does not declare` };
    const { minimum = 0, maximum = Number.MAX_SAFE_INTEGER } = header.schema;
    if (!/^\d+$/.test(String(value)) || Number(value) < minimum || Number(value) > maximum) {
      return { where, problem: `its ${name} header (${value}) is not the document's integer from ${minimum} to ${maximum}` };
    }
  }
  return undefined;
}

let documentedAnswers: Promise<DocumentedAnswers> | undefined;

/** The document and its checker, built once per suite on first use. */
export function documentedAnswersOf(): Promise<DocumentedAnswers> {
  documentedAnswers ??= loadDocumentedAnswers();
  return documentedAnswers;
}

function fail(found: AnswerProblem): never {
  throw new Error(`Undocumented answer: ${found.where}, but ${found.problem}`);
}

/** Throws unless the document lists this answer of a handler called directly (support/api.ts). */
export async function expectDocumentedAnswer(operationId: OperationId, prefixIndex: number, status: number, body: unknown, headers?: AnswerHeaders): Promise<void> {
  const found = (await documentedAnswersOf()).undocumentedAnswer(operationById(operationId), prefixIndex, status, body, headers);
  if (found) fail(found);
}

/**
 * Throws unless the document lists this answer to an HTTP request (`path` as sent). Requests
 * that match no route (the gateway's 404) concern no operation and pass.
 */
export async function expectDocumentedHttpAnswer(method: string, path: string, status: number, body: unknown, headers?: AnswerHeaders): Promise<void> {
  const match = matchRoute(method, path.split('?', 1)[0]!);
  if (!match) return;
  const prefixIndex = match.route.operation.paths.indexOf(match.route.path);
  const found = (await documentedAnswersOf()).undocumentedAnswer(match.route.operation, prefixIndex, status, body, headers);
  if (found) fail(found);
}
