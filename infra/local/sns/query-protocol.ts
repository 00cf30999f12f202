/**
 * The SNS Query protocol on the wire: request parameters (query string and form body, with the
 * protocol's list and map shapes) and the XML answers, errors included.
 */
import { invalidParameter, type SnsError } from './errors';
import type { Tag } from './types';

const XML_NAMESPACE = 'http://sns.amazonaws.com/doc/2010-03-31/';
const MAX_LIST_ENTRIES = 1_000;

function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r]/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** One element: string content is text (escaped here); an array is child elements built with `el`. */
export function el(name: string, content: string | readonly string[]): string {
  const inner = typeof content === 'string' ? escapeXml(content) : content.join('');
  return `<${name}>${inner}</${name}>`;
}

export function successXml(action: string, result: readonly string[] | undefined, requestId: string): string {
  const resultElement = result ? el(`${action}Result`, result) : '';
  const metadata = el('ResponseMetadata', [el('RequestId', requestId)]);
  return `<?xml version="1.0"?>\n<${action}Response xmlns="${XML_NAMESPACE}">${resultElement}${metadata}</${action}Response>\n`;
}

export function errorXml(error: SnsError, requestId: string): string {
  const body = el('Error', [el('Type', error.type), el('Code', error.code), el('Message', error.message)]);
  return `<?xml version="1.0"?>\n<ErrorResponse xmlns="${XML_NAMESPACE}">${body}${el('RequestId', requestId)}</ErrorResponse>\n`;
}

export function attributesXml(attributes: Record<string, string>): string {
  return el(
    'Attributes',
    Object.entries(attributes).map(([key, value]) => el('entry', [el('key', key), el('value', value)])),
  );
}

/** The request's parameters (query string and form body), with the Query protocol's list and map shapes. */
export class QueryParams {
  constructor(private readonly values: Map<string, string>) {}

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  require(name: string): string {
    const value = this.values.get(name);
    if (value === undefined || value === '') throw invalidParameter(`${name} Reason: no value for required parameter`);
    return value;
  }

  /** Booleans arrive as the text 'true'/'false' from both the SDK and the CLI. */
  flag(name: string): boolean {
    return this.values.get(name)?.toLowerCase() === 'true';
  }

  /**
   * `prefix.1`, `prefix.1.Key`, `prefix.2.Key`… grouped by index, in index order. Each group maps
   * the rest of the name to the value ('' for `prefix.N` itself). Collected by scanning the
   * names rather than counting up, so a gap in the numbering loses nothing.
   */
  indexed(prefix: string): Record<string, string>[] {
    const groups = new Map<number, Record<string, string>>();
    for (const [name, value] of this.values) {
      if (!name.startsWith(`${prefix}.`)) continue;
      const rest = name.slice(prefix.length + 1);
      const dot = rest.indexOf('.');
      const index = dot === -1 ? rest : rest.slice(0, dot);
      if (!/^[0-9]{1,6}$/.test(index)) continue;
      let group = groups.get(Number(index));
      if (!group) {
        if (groups.size >= MAX_LIST_ENTRIES) throw invalidParameter(`${prefix} Reason: too many entries`);
        group = Object.create(null) as Record<string, string>;
        groups.set(Number(index), group);
      }
      group[dot === -1 ? '' : rest.slice(dot + 1)] = value;
    }
    return [...groups.entries()].sort(([a], [b]) => a - b).map(([, group]) => group);
  }

  /** A list: `Name.member.N`. */
  members(name: string): string[] {
    return this.indexed(`${name}.member`).flatMap((group) => (group[''] === undefined ? [] : [group['']]));
  }

  /** A string map: `Name.entry.N.key` / `Name.entry.N.value`. */
  stringMap(name: string): Map<string, string> {
    const map = new Map<string, string>();
    for (const entry of this.indexed(`${name}.entry`)) {
      if (entry.key === undefined) throw invalidParameter(`${name} Reason: entry without a key`);
      map.set(entry.key, entry.value ?? '');
    }
    return map;
  }

  /** Tags: `Tags.member.N.Key` / `Tags.member.N.Value`. */
  tags(): Tag[] {
    return this.indexed('Tags.member').map((member) => ({ Key: member.Key ?? '', Value: member.Value ?? '' }));
  }
}

/** Query string and form body together: the SDK and CLI POST a form; a SubscribeURL is a GET. */
export function requestParams(url: URL, body: string): QueryParams {
  const values = new Map(url.searchParams);
  for (const [name, value] of new URLSearchParams(body)) values.set(name, value);
  return new QueryParams(values);
}
