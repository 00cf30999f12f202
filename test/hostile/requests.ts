/**
 * Generated hostile requests for each operation of the API, and what the answer to each must be.
 *
 * A request is built in layers, each of which knows whether it makes the request invalid:
 * - the body: for the operations that read one, an object of fields each of which is valid,
 *   surely invalid ("bad": wrong type, missing, out of range, malformed), or of uncertain
 *   validity ("maybe": e.g. arbitrary Unicode in a name), plus ignored extra fields
 *   (`__proto__`, `constructor`, ...); or a body that is not a JSON object at all;
 * - the content type (JSON, a JSON variant, none, or something else);
 * - the size (padded past 64 KiB, past 1 MB, rarely past API Gateway's 10 MB), chunked or not;
 * - the Idempotency-Key header (create reads it; the others must ignore it);
 * - the path (the route, or a mangled path no route matches; for delete, odd ids) and a query.
 *
 * From the layers follows the expected outcome: `accept` (200), `refuse` (the handler's 400
 * envelope, naming one of `blame`: a field or an error code), `either` (200 or such a 400),
 * `no-route` (API Gateway's 404), `too-large` (API Gateway's 413), and for malformed
 * percent-encodings in delete's id, where API Gateway's own answer is not pinned down here,
 * `refuse-or-no-route` / `too-large-or-no-route`.
 *
 * Paths are matched as the local gateway (infra/local/gateway/routes.ts) does and as API
 * Gateway documents it: literal segments exactly as sent, the `{configId}` segment
 * percent-decoded.
 *
 * The oracle is the request rules and the decisions in docs/api.md, written out independently of the
 * service's code: it never calls the service's validators.
 */
import fc from 'fast-check';
import { addressingParts, statusParts } from './addressing-and-status-parts';
import { nonObjectBodies, objectBodies, pathsOf, routesTo } from './bodies';
import { deliveryParts, eventsParts, type FieldParts, nameParts } from './field-parts';
import type { GeneratorIds, HostileRequest } from './hostile-request';
import { bodyRequests, idempotencyKeys, ignoredBodyRequests, ignoredKeys } from './request-assembly';

export {
  ANY_FIELD,
  BODY_CODES,
  DEPENDENCY_CODES,
  GATEWAY_MAX_BYTES,
  type GeneratorIds,
  type HostileRequest,
  type Ids,
  MAX_BODY_BYTES,
  type OperationName,
  type Outcome,
  type Target,
} from './hostile-request';
export { classifyDeletePath, deleteRequests } from './delete-requests';

export function createRequests(): fc.Arbitrary<HostileRequest> {
  const fields = [nameParts, deliveryParts, eventsParts];
  const objects = objectBodies(fields, ['name', 'endpoint', 'protocol', 'events'], { ok: 12, maybe: 10, bad: 40 });
  const valid = objectBodies(fields, ['name', 'endpoint', 'protocol', 'events'], { ok: 1, maybe: 0, bad: 0 });
  const bodies = fc.oneof({ weight: 4, arbitrary: objects }, { weight: 1, arbitrary: nonObjectBodies(valid) });
  return bodyRequests('create', 'POST', '', bodies, idempotencyKeys);
}

function changeRequests(operation: 'update' | 'activate' | 'rename', subPath: string, field: FieldParts, fieldKey: string, ids: GeneratorIds) {
  const fields = [addressingParts(ids), field];
  const reserved = ['config_id', 'configId', fieldKey];
  const objects = objectBodies(fields, reserved, { ok: 8, maybe: 4, bad: 40 });
  const valid = objectBodies(fields, reserved, { ok: 1, maybe: 0, bad: 0 });
  const bodies = fc.oneof({ weight: 4, arbitrary: objects }, { weight: 1, arbitrary: nonObjectBodies(valid) });
  return bodyRequests(operation, 'PUT', subPath, bodies, ignoredKeys);
}

export const updateRequests = (ids: GeneratorIds) => changeRequests('update', '', eventsParts, 'events', ids);
export const activateRequests = (ids: GeneratorIds) => changeRequests('activate', '/activate', statusParts, 'status', ids);
export const renameRequests = (ids: GeneratorIds) => changeRequests('rename', '/rename', nameParts, 'name', ids);
// --- list ---------------------------------------------------------------------------------------

export function listRequests(): fc.Arbitrary<HostileRequest> {
  const paths = pathsOf('/list').map((choice) => ({ path: () => choice.path, why: choice.path }));
  return ignoredBodyRequests('list', 'GET', paths, (fullPath) => {
    const routed = routesTo(fullPath.split('?', 1)[0]!, '/list');
    return { path: fullPath, outcome: routed ? 'accept' : 'no-route', blame: [] };
  });
}
