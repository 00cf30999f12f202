/**
 * The decision records (docs/decisions/): one short file per decision in the form the index
 * gives (a Status line, then Context, Decision, Consequences), each listed once in the index's
 * Records list, one line per record, and a superseded record naming the record that replaced it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/npm-start';

const DECISIONS = join(PROJECT_ROOT, 'docs', 'decisions');
const index = readFileSync(join(DECISIONS, 'README.md'), 'utf8');
const records = readdirSync(DECISIONS).filter((name) => name.endsWith('.md') && name !== 'README.md');
const STATUS = /^Status: (accepted\b.*|superseded by \[[^\]]+\]\(([a-z0-9-]+\.md)\).*)$/m;

it('has records, and no decisions.md beside them', () => {
  expect(records.length).toBeGreaterThan(20);
  expect(existsSync(join(PROJECT_ROOT, 'docs', 'decisions.md'))).toBe(false);
});

it('lists every record once in the index, one line `- [Title](slug.md)` each, and nothing that is not there', () => {
  const listed = [...index.slice(index.indexOf('## Records')).matchAll(/^- \[(.*)\]\(([^)]+)\)$/gm)].map((match) => ({ title: match[1]!, file: match[2]! }));
  const files = listed.map((entry) => entry.file);
  expect([...files].sort()).toEqual([...records].sort());
  expect(new Set(files).size).toBe(files.length);
  expect(listed.filter((entry) => entry.title.trim() === '').map((entry) => entry.file)).toEqual([]);
});

describe.each(records)('%s', (record) => {
  const text = readFileSync(join(DECISIONS, record), 'utf8');

  it('is in the form: a title, a Status line, then Context, Decision and Consequences in that order', () => {
    expect(text).toMatch(/^# \S/);
    expect(text).toMatch(STATUS);
    const sections = [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(sections).toEqual(['Context', 'Decision', 'Consequences']);
    expect(text.indexOf('\nStatus: ')).toBeLessThan(text.indexOf('\n## Context'));
  });

  it('names, when superseded, a record that exists', () => {
    const replacedBy = STATUS.exec(text)?.[2];
    if (replacedBy !== undefined) expect([record, existsSync(join(DECISIONS, replacedBy))]).toEqual([record, true]);
  });
});
