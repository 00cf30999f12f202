/**
 * docs/configuration.md against the settings table of the code (shared/settings.ts): every
 * setting on the page, nothing on it the table lacks, and the same defaults and CDK keys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/aws/service-function';
import { DEFAULT_PORTS } from '../../infra/local/stack/ports';
import { SETTINGS, type Setting } from '../../shared/settings';

const page = readFileSync(join(PROJECT_ROOT, 'docs/configuration.md'), 'utf8');

/** The rows of the first table under the `## heading`, each as its cells. */
function tableUnder(heading: string): string[][] {
  const section = page.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (section === undefined) throw new Error(`docs/configuration.md has no section "## ${heading}".`);
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  return lines.slice(2).map((line) => line.slice(1, -1).split(' | ').map((cell) => cell.trim()));
}

/** The value a default cell starts with (`` `x` ``), or undefined when it starts with prose (required, none, unset). */
const shownDefault = (cell: string) => /^`([^`]*)`/.exec(cell)?.[1];
const codeOf = (cell: string) => /^`([^`]+)`$/.exec(cell)?.[1];
const expectedDefault = (setting: Setting) => (setting.default === '' ? undefined : setting.default);

describe.each([
  ['Function variables', ['function', 'sdk']],
  ['Logging variables', ['log']],
  ['CDK context keys', ['cdk']],
  ['Local stack variables', ['local']],
] as const)('docs/configuration.md, "%s"', (heading, kinds) => {
  const settings = SETTINGS.filter((setting) => (kinds as readonly string[]).includes(setting.kind));
  const nameOf = (setting: Setting) => (setting.kind === 'cdk' ? setting.contextKey! : setting.variable!);
  const rows = tableUnder(heading);

  it('lists every setting of the table, and no other', () => {
    expect(rows.map((cells) => codeOf(cells[0]!)).sort()).toEqual(settings.map(nameOf).sort());
  });

  it('shows the default of each', () => {
    for (const setting of settings) {
      const cells = rows.find((row) => codeOf(row[0]!) === nameOf(setting));
      expect({ setting: nameOf(setting), default: cells && shownDefault(cells.at(-1)!) }).toEqual({ setting: nameOf(setting), default: expectedDefault(setting) });
    }
  });

  if (heading === 'Function variables') {
    it('names the CDK key of each that has one', () => {
      const shown = rows.map((cells) => [codeOf(cells[0]!), cells[1] === '' ? undefined : codeOf(cells[1]!)]);
      expect(Object.fromEntries(shown)).toEqual(Object.fromEntries(settings.map((setting) => [setting.variable, setting.contextKey])));
    });
  }
});

describe("the settings table's local-stack defaults", () => {
  it('are the local stack\'s own ports', () => {
    const port = (variable: string) => Number(SETTINGS.find((setting) => setting.kind === 'local' && setting.variable === variable)!.default);
    expect({ api: port('PORT'), dynamoDb: port('DYNAMODB_PORT'), sns: port('SNS_PORT'), events: port('EVENTS_PORT') }).toEqual(DEFAULT_PORTS);
  });
});
