/**
 * The project's pages as the admin site serves them (infra/local/admin/markdown.ts): every docs page,
 * every decision record and the README render with no markdown left showing, headings carry
 * GitHub's anchors (so the pages' links to each other's sections work), and nothing in a page
 * becomes markup.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminSiteRoutes } from '../../infra/local/admin/admin-site';
import { headingAnchor, markdownPage, markdownToHtml } from '../../infra/local/admin/markdown';
import { PROJECT_ROOT } from '../support/npm-start';

/** The pages the local site serves: the README, docs/*.md and the decision records (docs/decisions/*.md). */
const PAGES = [
  'README.md',
  ...['docs', 'docs/decisions'].flatMap((folder) =>
    readdirSync(join(PROJECT_ROOT, folder))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `${folder}/${name}`),
  ),
];

/** The text a reader sees outside code: tags and code removed, entities kept. */
function proseOf(html: string): string {
  return html
    .replace(/<pre>[\s\S]*?<\/pre>/g, '')
    .replace(/<code>[\s\S]*?<\/code>/g, '')
    .replace(/<[^>]+>/g, '');
}

describe.each(PAGES)('%s', (page) => {
  const markdown = readFileSync(join(PROJECT_ROOT, page), 'utf8');
  const html = markdownToHtml(markdown);
  const prose = proseOf(html);

  it('renders with no markdown left showing', () => {
    expect(prose.split('\n').filter((line) => /^\s*(#{1,6} |```|\|?\s*-{3,}\s*\|)/.test(line))).toEqual([]);
    expect(prose.match(/\*\*|\]\(|`/g) ?? []).toEqual([]);
    expect(html.match(/<h1 /g)).toHaveLength(1);
  });

  it('has an anchor for every section another page links to', () => {
    const name = page.replace(/^docs\//, '');
    const anchorsLinked = PAGES.flatMap((other) => [...readFileSync(join(PROJECT_ROOT, other), 'utf8').matchAll(new RegExp(`\\(${name.replace('.', '\\.')}#([a-z0-9-]+)\\)`, 'g'))].map((match) => match[1]!));
    const anchors = new Set([...html.matchAll(/<h\d id="([^"]+)"/g)].map((match) => match[1]!));
    expect([...new Set(anchorsLinked)].filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });
});

it('serves every one of these pages on the local site, so links between them work there too', () => {
  const served = Object.keys(adminSiteRoutes({}, {}));
  expect(PAGES.map((page) => `/${page}`).filter((path) => !served.includes(path))).toEqual([]);
});

it('escapes what a page holds, so nothing in it becomes markup', () => {
  expect(markdownToHtml('A <script>alert(1)</script> and `<b>` and [x](javascript&quot;)')).toBe(
    '<p>A &lt;script&gt;alert(1)&lt;/script&gt; and <code>&lt;b&gt;</code> and <a href="javascript&amp;quot;">x</a></p>',
  );
  expect(markdownPage('# T <i>', '/admin/docs.css')).toContain('<title>T &lt;i&gt;</title>');
});

it('makes anchors as GitHub does', () => {
  expect(headingAnchor("The documentation's commands")).toBe('the-documentations-commands');
  expect(headingAnchor('Settings (CDK context)')).toBe('settings-cdk-context');
});
