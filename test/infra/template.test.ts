/**
 * The template `cdk synth` produces, synthesized once without bundling (no check here reads a
 * bundle: stack.bundles.test.ts and sam-invoke.test.ts do) and read by the checks of
 * template/: the stack against the operations table and the settings (stack.ts), who may do what
 * (stack-iam.ts), what an attacker holding one role's credentials could reach
 * (least-privilege.ts), delivery (delivery.ts, dead-letters-by-portal.ts), the operator's alarms (alarms.ts) and dashboard (dashboard.ts).
 *
 * One suite rather than six: each loaded aws-cdk-lib and synthesized the same stack again,
 * seconds of CPU each (docs/decisions/test-run-in-parallel-suites.md).
 */
import { synthesizeBeforeAll } from '../support/synthesized-stack';
import './template/stack';
import './template/stack-iam';
import './template/least-privilege';
import './template/delivery';
import './template/dead-letters-by-portal';
import './template/alarms';
import './template/dashboard';

synthesizeBeforeAll({ bundle: false });
