/**
 * The project's markdown pages as HTML, for the local admin site (admin-site.ts): the subset its
 * own docs use (headings with GitHub's anchors, paragraphs, lists with continuation lines and
 * nesting, fenced code, tables, block quotes; code spans, links, images as links, bold, italics).
 * Small on purpose: no dependency for a page served on one machine, and every docs page is held to
 * rendering without markdown left showing (test/local/markdown.test.ts).
 */

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** Inline markdown of one block's text, HTML-escaped. */
function inline(text: string): string {
  const codeSpans: string[] = [];
  // Code spans first: nothing inside them is markdown.
  let html = text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_match, _ticks: string, code: string) => {
    codeSpans.push(`<code>${escapeHtml(code.trim() === '' ? code : code.replace(/^ (.*) $/s, '$1'))}</code>`);
    return `\u0000${codeSpans.length - 1}\u0000`;
  });
  html = escapeHtml(html)
    .replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>')
    .replace(/&lt;(https?:\/\/[^\s&]+)&gt;/g, '<a href="$1">$1</a>')
    .replace(/\*\*([^*]+?)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[\s(])\*([^*\s][^*]*?)\*(?=[\s).,;:!?]|$)/g, '$1<em>$2</em>')
    .replace(/(^|[\s(])_([^_\s][^_]*?)_(?=[\s).,;:!?]|$)/g, '$1<em>$2</em>');
  return html.replace(/\u0000(\d+)\u0000/g, (_match, index: string) => codeSpans[Number(index)]!);
}

const LIST_ITEM = /^( {0,3})([-*]|\d+[.)])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** Block-level markdown of some lines; `tight`: a list item's lone paragraph without <p>. */
function blocks(lines: readonly string[], tight = false): string {
  const out: string[] = [];
  let index = 0;
  const paragraphs: string[] = [];
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.trim() === '') {
      index++;
      continue;
    }
    const fence = /^\s*(```+|~~~+)(.*)$/.exec(line);
    if (fence) {
      const code: string[] = [];
      const indent = line.length - line.trimStart().length;
      for (index++; index < lines.length && !lines[index]!.trim().startsWith(fence[1]!); index++) code.push(lines[index]!.slice(indent));
      index++;
      const language = fence[2]!.trim();
      out.push(`<pre><code${language ? ` class="language-${escapeHtml(language)}"` : ''}>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      out.push(`<h${level} id="${headingAnchor(heading[2]!.replace(/[`*_]/g, ''))}">${inline(heading[2]!)}</h${level}>`);
      index++;
      continue;
    }
    if (line.includes('|') && index + 1 < lines.length && TABLE_SEPARATOR.test(lines[index + 1]!)) {
      const head = cellsOf(line);
      const rows: string[][] = [];
      for (index += 2; index < lines.length && lines[index]!.includes('|') && lines[index]!.trim() !== ''; index++) rows.push(cellsOf(lines[index]!));
      out.push(
        `<table><thead><tr>${head.map((cell) => `<th>${inline(cell)}</th>`).join('')}</tr></thead><tbody>${rows
          .map((row) => `<tr>${row.map((cell) => `<td>${inline(cell)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table>`,
      );
      continue;
    }
    if (line.startsWith('>')) {
      const quoted: string[] = [];
      for (; index < lines.length && lines[index]!.startsWith('>'); index++) quoted.push(lines[index]!.replace(/^>\s?/, ''));
      out.push(`<blockquote>${blocks(quoted)}</blockquote>`);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2]!);
      const items: string[][] = [];
      const markerIndent = item[1]!.length;
      while (index < lines.length) {
        const current = LIST_ITEM.exec(lines[index]!);
        if (!current || current[1]!.length !== markerIndent || /\d/.test(current[2]!) !== ordered) break;
        const contentIndent = markerIndent + current[2]!.length + 1;
        const content = [current[3]!];
        // Continuation lines: indented, or blank lines followed by indented ones.
        for (index++; index < lines.length; index++) {
          const next = lines[index]!;
          const indentOf = (text: string) => text.length - text.trimStart().length;
          if (next.trim() === '') {
            // A blank line inside the item: only when the item goes on, indented, after it.
            const following = lines[index + 1];
            if (following !== undefined && following.trim() !== '' && indentOf(following) >= contentIndent) {
              content.push('');
              continue;
            }
            break;
          }
          if (indentOf(next) > markerIndent) {
            content.push(next.slice(Math.min(contentIndent, indentOf(next))));
            continue;
          }
          if (!/^\s/.test(next) && !LIST_ITEM.test(next) && !next.startsWith('#') && !next.startsWith('```')) {
            content.push(next); // a lazy continuation line
            continue;
          }
          break;
        }
        items.push(content);
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((content) => `<li>${blocks(content, true)}</li>`).join('')}</${tag}>`);
      continue;
    }
    // A paragraph: up to a blank line or the start of another block.
    for (; index < lines.length; index++) {
      const next = lines[index]!;
      if (next.trim() === '' || /^\s*(```|~~~|#{1,6}\s|>)/.test(next) || (paragraphs.length > 0 && LIST_ITEM.test(next))) break;
      paragraphs.push(next.trim());
    }
    const text = inline(paragraphs.splice(0).join('\n'));
    out.push(tight && out.length === 0 && index >= lines.length ? text : `<p>${text}</p>`);
  }
  return out.join('\n');
}

/** A whole page: the markdown's HTML in a document with `stylesheet`, titled by its first heading. */
export function markdownPage(markdown: string, stylesheet: string): string {
  const title = /^#\s+(.*)$/m.exec(markdown)?.[1] ?? 'Document';
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8" />',
    '<meta name="viewport" content="width=device-width, initial-scale=1" />',
    `<title>${escapeHtml(title.replace(/`/g, ''))}</title>`,
    `<link rel="stylesheet" href="${escapeHtml(stylesheet)}" />`,
    '<link rel="icon" href="/admin/favicon.svg" type="image/svg+xml" />',
    '</head>',
    '<body><main class="document">',
    blocks(markdown.replace(/\r\n/g, '\n').split('\n')),
    '</main></body>',
    '</html>',
  ].join('\n');
}

/** The HTML of some markdown, without a page around it. */
export function markdownToHtml(markdown: string): string {
  return blocks(markdown.replace(/\r\n/g, '\n').split('\n'));
}
