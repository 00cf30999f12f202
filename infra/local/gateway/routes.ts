/**
 * The gateway's routes: one per operation and path prefix, taken from the operations table
 * only, as the CDK stack takes its HTTP API routes, so a route cannot exist here and not on AWS.
 */
import { type HttpMethod, type Operation, OPERATIONS } from '../../../shared/operations';

export interface Route {
  readonly operation: Operation;
  readonly method: HttpMethod;
  /** The route's path as API Gateway knows it, e.g. `/webhooks/api/subscriptions/{configId}`. */
  readonly path: string;
  /** `"<method> <path>"`: the event's routeKey. */
  readonly routeKey: string;
}

export interface RouteMatch {
  readonly route: Route;
  /** Values of the route's `{name}` segments, percent-decoded; undefined when it has none. */
  readonly pathParameters: Record<string, string> | undefined;
}

const PARAMETER_SEGMENT = /^\{([A-Za-z0-9_]+)\}$/;

export const ROUTES: readonly Route[] = OPERATIONS.flatMap((operation) =>
  operation.paths.map((path) => ({ operation, method: operation.method, path, routeKey: `${operation.method} ${path}` })),
);

/**
 * The route for a request, or undefined (API Gateway answers 404 then, for an unknown path and
 * for a known path with another method alike). `rawPath` is the path as sent, still
 * percent-encoded. It is split into segments at its slashes first, then each segment is
 * percent-decoded, as API Gateway decodes a path before routing it: `/%6Cist` is the route
 * `/list`, while `%2F` stays inside its segment and never adds one. A literal segment must
 * equal the decoded one, a `{name}` segment matches any one non-empty segment; a malformed
 * escape matches nothing. Literal routes win over parameter routes, as in API Gateway.
 */
export function matchRoute(method: string, rawPath: string, routes: readonly Route[] = ROUTES): RouteMatch | undefined {
  const segments = rawPath.split('/');
  let best: RouteMatch | undefined;
  let bestParameterCount = Infinity;
  for (const route of routes) {
    if (route.method !== method) continue;
    const pathParameters = matchSegments(route.path.split('/'), segments);
    if (!pathParameters) continue;
    const parameterCount = Object.keys(pathParameters).length;
    if (parameterCount < bestParameterCount) {
      best = { route, pathParameters: parameterCount === 0 ? undefined : pathParameters };
      bestParameterCount = parameterCount;
    }
  }
  return best;
}

function matchSegments(template: string[], actual: string[]): Record<string, string> | undefined {
  if (template.length !== actual.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, expected] of template.entries()) {
    const segment = decodedSegment(actual[index]!);
    if (segment === undefined) return undefined; // malformed percent-encoding matches nothing
    const parameter = PARAMETER_SEGMENT.exec(expected);
    if (!parameter) {
      if (segment !== expected) return undefined;
      continue;
    }
    if (segment === '') return undefined;
    parameters[parameter[1]!] = segment;
  }
  return parameters;
}

function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
