/**
 * Cuts a bundle's source map down to the service's own sources: the mappings into
 * node_modules (the AWS SDK's, mostly: nine tenths of the map) go, so the map read for the
 * first stack trace (source-mapped-stack-traces.ts; or at every load, under
 * `--enable-source-maps`) is a tenth of the size, and a stack trace still names the TypeScript
 * file and line of every frame of ours. A frame in a dependency keeps its bundle position
 * (`index.js:1:23456`).
 *
 * Run after esbuild at synth, in the synth's process (bundled-code.ts), and by `npm run bench`
 * on the bundles it measures: writeOwnSourceMap rewrites the file in place. No imports but
 * Node's own, so the bench reads it without loading the CDK.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export interface SourceMapV3 {
  version: number;
  sources: string[];
  names: string[];
  mappings: string;
  sourcesContent?: (string | null)[];
  [field: string]: unknown;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUES = new Map([...BASE64].map((char, index) => [char, index]));

/** The Base64 VLQ numbers of one segment. */
function decodeSegment(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64_VALUES.get(char);
    if (digit === undefined) throw new Error(`source map: "${char}" is not Base64 VLQ`);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function encodeValue(value: number): string {
  let rest = value < 0 ? -value * 2 + 1 : value * 2;
  let text = '';
  do {
    const digit = rest % 32;
    rest = Math.floor(rest / 32);
    text += BASE64[rest > 0 ? digit + 32 : digit];
  } while (rest > 0);
  return text;
}

/** Whether a source of the map is the service's own rather than a dependency's. */
export const isOwnSource = (source: string): boolean => !/(^|[\\/])node_modules[\\/]/.test(source);

/**
 * The map with only the segments that point into the service's own sources. A segment into a
 * dependency becomes an unmapped one (its column alone), so the code after one of ours on the
 * same generated line is not taken for ours.
 */
export function ownSourceMap(map: SourceMapV3): SourceMapV3 {
  const sourceIndex = new Map<number, number>();
  const sources: string[] = [];
  map.sources.forEach((source, index) => {
    if (!isOwnSource(source)) return;
    sourceIndex.set(index, sources.length);
    sources.push(source);
  });
  const nameIndex = new Map<number, number>();
  const names: string[] = [];

  // What the segments read so far add up to (source, line, column and name carry across lines).
  const read = { source: 0, line: 0, column: 0, name: 0 };
  const written = { source: 0, line: 0, column: 0, name: 0 };
  const lines = map.mappings.split(';').map((line) => {
    const segments: string[] = [];
    let readColumn = 0;
    let writtenColumn = 0;
    let lastMapped = false;
    for (const segment of line.split(',')) {
      if (segment === '') continue;
      const [column, source, sourceLine, sourceColumn, name] = decodeSegment(segment);
      readColumn += column!;
      if (source !== undefined) {
        read.source += source;
        read.line += sourceLine!;
        read.column += sourceColumn!;
        if (name !== undefined) read.name += name;
      }
      const ownSource = source === undefined ? undefined : sourceIndex.get(read.source);
      if (ownSource === undefined) {
        // Unmapped, or a dependency's code: only the end of a stretch of ours needs a segment.
        if (lastMapped) {
          segments.push(encodeValue(readColumn - writtenColumn));
          writtenColumn = readColumn;
        }
        lastMapped = false;
        continue;
      }
      let text = encodeValue(readColumn - writtenColumn) + encodeValue(ownSource - written.source) + encodeValue(read.line - written.line) + encodeValue(read.column - written.column);
      if (name !== undefined) {
        let ownName = nameIndex.get(read.name);
        if (ownName === undefined) {
          ownName = names.length;
          nameIndex.set(read.name, ownName);
          names.push(map.names[read.name]!);
        }
        text += encodeValue(ownName - written.name);
        written.name = ownName;
      }
      segments.push(text);
      writtenColumn = readColumn;
      Object.assign(written, { source: ownSource, line: read.line, column: read.column });
      lastMapped = true;
    }
    return segments.join(',');
  });

  const { sourcesContent, ...rest } = map;
  return {
    ...rest,
    sources,
    names,
    mappings: lines.join(';'),
    ...(sourcesContent && { sourcesContent: map.sources.flatMap((source, index) => (isOwnSource(source) ? [sourcesContent[index] ?? null] : [])) }),
  };
}

/** Rewrites a source map file in place with only the service's own sources. */
export function writeOwnSourceMap(mapPath: string): void {
  const map = JSON.parse(readFileSync(mapPath, 'utf8')) as SourceMapV3;
  writeFileSync(mapPath, JSON.stringify(ownSourceMap(map)));
}
