/**
 * The data layer as docs/design.md shows it: one row per item kind of shared/data/table.ts's
 * ITEM_KINDS, with its key and owner, and each owner a file that exists; and no module outside
 * shared/data/ builds a DynamoDB write (the one owner per kind).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ITEM_KINDS } from '../../shared/data/table';
import { PROJECT_ROOT } from '../support/npm-start';

const design = readFileSync(join(PROJECT_ROOT, 'docs', 'design.md'), 'utf8');
const rows = [...design.matchAll(/^\| ([^|]+) \| `([^`]+)` \| `([^`]+)` \|/gm)].map((match) => ({ kind: match[1]!.trim(), key: match[2]!, owner: match[3]! }));

it('lists every item kind in docs/design.md with its key and owner, and no other', () => {
  expect(rows).toEqual(ITEM_KINDS.map(({ kind, key, owner }) => ({ kind, key, owner })));
});

it('names owners that exist', () => {
  expect(ITEM_KINDS.filter(({ owner }) => !existsSync(join(PROJECT_ROOT, owner))).map(({ owner }) => owner)).toEqual([]);
});

it('has no DynamoDB write built outside shared/data/', () => {
  const files = execFileSync('git', ['grep', '-lE', '(Put|Update|Delete|TransactWrite|BatchWrite)(Item)?Command\\b', '--', 'shared', 'functions'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  expect(files.filter((file) => !file.startsWith('shared/data/'))).toEqual([]);
});
