/**
 * The README stays a front door: what the service is, the picture, two commands, the
 * walk-through, where each part lives, and a line and a link per topic. Its size is capped, so
 * the next feature adds a docs/ page (and one line here), not a section.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/npm-start';

const MAX_README_LINES = 250;

const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

it(`is at most ${MAX_README_LINES} lines: new material goes into a docs/ page, with a line and a link in the README`, () => {
  const lines = readme.replace(/\n$/, '').split('\n').length;
  expect({ lines, withinCap: lines <= MAX_README_LINES }).toEqual({ lines, withinCap: true });
});

it('keeps the front door: the picture, two commands, the walk-through, where each part lives, the pages', () => {
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
  expect(headings).toEqual(expect.arrayContaining(['Architecture', 'Two commands', 'Five-minute walk-through', 'Where each part lives', 'Documentation']));
});

it('links every docs/ page from its Documentation list, so what leaves the README is still found', () => {
  const list = readme.slice(readme.indexOf('## Documentation'));
  const pages = readdirSync(join(PROJECT_ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  expect(pages.length).toBeGreaterThan(10);
  expect(pages.filter((name) => !list.includes(`](docs/${name})`))).toEqual([]);
  expect(list).toContain('](docs/decisions/README.md)');
});
