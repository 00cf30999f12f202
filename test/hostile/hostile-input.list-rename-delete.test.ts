/**
 * Hostile input over HTTP against the local stack, for list, rename and delete: the same checks
 * as hostile-input.test.ts (which says what they are) makes for create, update and activate.
 */
import { describeHostileInput } from './hostile-input-suite';

describeHostileInput(['list', 'rename', 'delete']);
