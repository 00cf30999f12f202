/**
 * Hostile input, over HTTP against the local stack, the way a caller reaches the service:
 * for each operation of OPERATION_NAMES (harness.ts; create, update and activate here, list,
 * rename and delete in hostile-input.list-rename-delete.test.ts), over 1,000 generated requests with
 * wrong types, missing and extra fields (`__proto__`, `constructor`, `prototype` written
 * literally), empty and huge strings, Unicode (astral, combining, RTL, lone surrogates),
 * control characters, non-JSON bodies, wrong content types, oversized bodies (past 64 KiB,
 * past 1 MB, a few past API Gateway's 10 MB), ids with slashes, `..`, `%2F`, `%00`, double
 * encodings, Unicode and great length; and valid requests among them.
 *
 * For every answer: no fault. A 5xx is allowed only as the service's overload answer (503
 * `SERVICE_UNAVAILABLE` with Retry-After) to a request that reached DynamoDB or SNS, which on a
 * loaded machine can miss the SDK's budget; such answers are counted apart, and a request that
 * may change state is then repeated after Retry-After (a bounded number of times). Any other
 * 5xx, or a 503 for a request refused before it reached a dependency, is a fault and fails the
 * suite. Every refusal by the handlers is a 400 with exactly
 * `{success: false, message, code}` whose message names the field or says what is wrong,
 * without internals. API Gateway's own answers (404 for a path no route matches, 413 past
 * 10 MB) come only where API Gateway would give them. A refused request changes nothing: the
 * whole table (every portal, byte for byte) and every topic and SNS subscription of the
 * emulator are compared before and after. An accepted one changes exactly what it asks for.
 *
 * Generators: requests.ts (with the expected outcome of each request);
 * checks and the runner: checks.ts; per-operation state: drivers.ts.
 */
import { describeHostileInput } from './hostile-input-suite';

// List, rename and delete: hostile-input.list-rename-delete.test.ts, run beside this one.
describeHostileInput(['create', 'update', 'activate']);
