/**
 * What `npm start` prints of the functions' settings (shared/settings.ts): every one the shell
 * gives a value other than its default (a retry schedule of seconds, a shorter disable horizon,
 * other keep periods...), so a developer sees at start whether a setting took, not only once
 * its behaviour shows. The variables the local stack sets itself (its endpoints, table, dead-letter
 * queue, recovery queue and principals: stack/service-environment.ts, stack/local-stack.ts) are not the shell's, and are printed elsewhere
 * or not at all. A value the functions refuse never gets here: the handlers' import fails first,
 * naming the variable.
 */
import { SETTINGS } from '../../shared/settings';
import { LOCAL_DELIVERY_STATUS_ROLE_ARN } from '../aws/local-account';

/** Set by the local stack whatever the shell holds, or printed elsewhere (the table). */
const SET_BY_THE_STACK = new Set(['TABLE_NAME', 'DELIVERY_DEAD_LETTER_QUEUE_ARN', 'TOPIC_PUBLISHER_ARNS', 'TOPIC_MANAGER_ARNS', 'RECOVERY_QUEUE_URL', 'DEAD_LETTERS_BY_PORTAL_QUEUE_URL']);

/** The local stack's own defaults where they are not the functions' (stack/service-environment.ts). */
const LOCAL_DEFAULTS: Readonly<Record<string, string>> = {
  ALLOW_LOOPBACK_ENDPOINTS: 'true',
  DELIVERY_STATUS_ROLE_ARN: LOCAL_DELIVERY_STATUS_ROLE_ARN,
};

export interface SettingApart {
  readonly variable: string;
  readonly value: string;
  /** The default, as text; undefined: none (unset unless given). */
  readonly default: string | undefined;
}

/** The functions' settings the shell's `environment` sets to something other than their default, in the table's order. */
export function settingsApartFromDefaults(environment: NodeJS.ProcessEnv): SettingApart[] {
  return SETTINGS.filter((setting) => setting.kind === 'function' && !SET_BY_THE_STACK.has(setting.variable!)).flatMap((setting) => {
    const variable = setting.variable!;
    const value = environment[variable]?.trim();
    const byDefault = LOCAL_DEFAULTS[variable] ?? setting.default;
    // Blank is unset for the functions too (shared/config.ts).
    if (!value || value === byDefault) return [];
    return [{ variable, value, default: byDefault }];
  });
}

/** The printout's lines: one per setting apart from its default, or one saying every one is at its default. */
export function settingsInEffectLines(environment: NodeJS.ProcessEnv): string[] {
  const apart = settingsApartFromDefaults(environment);
  if (apart.length === 0) return ['Function settings: every one at its default (docs/configuration.md).'];
  const width = Math.max(...apart.map((setting) => setting.variable.length + setting.value.length + 1));
  return [
    'Function settings other than the defaults (docs/configuration.md):',
    ...apart.map((setting) => {
      const assignment = `${setting.variable}=${setting.value}`;
      const byDefault = setting.default === undefined || setting.default === '' ? 'unset by default' : `default ${setting.default}`;
      return `  ${assignment.padEnd(width)}   (${byDefault})`;
    }),
  ];
}
