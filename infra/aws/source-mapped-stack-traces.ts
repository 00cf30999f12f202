/**
 * Stack traces through the bundle's source map, read only when a stack trace is first written.
 *
 * `--enable-source-maps` makes Node read the map and measure every line of the bundle as the
 * bundle loads: 3-6 ms of every cold start here with a map of our own sources only, for stack
 * traces most cold starts never write. Instead, this file opens every function's bundle (its
 * banner, function-bundling.ts), and installs an `Error.prepareStackTrace` that V8 calls when an
 * error's `stack` is first read: the first one reads `index.js.map` (own-source-map.ts keeps it
 * small), and every frame in the bundle is written as Node writes it with `--enable-source-maps`
 * (its prepareStackTraceWithSourceMaps): the original file, line, column and function name.
 * Frames outside the bundle, and all of them if the map cannot be read, stay as V8 writes them.
 *
 * A banner rather than an import, so it runs before any module of the bundle (the configuration
 * check fails as the bundle loads) and leaves esbuild's tree-shaking alone (an injected module
 * is imported by every module, and kept eleven more of lib-dynamodb's commands in the bundle);
 * so it imports nothing, and takes Node's modules from process.getBuiltinModule.
 */
type SourceMap = import('node:module').SourceMap;

const STACK_LINE_AT = '\n    at ';

/** What SourceMap.findEntry answers: nothing where the map has no segment, no source where a segment maps to none. */
type Entry = Partial<{ originalSource: string; originalLine: number; originalColumn: number; name: string }>;

/** The header of a stack trace, as Node writes it: Node's own errors with their code. */
function errorHeader(error: Error): string {
  const isNodeError = Object.getOwnPropertySymbols(error).some((symbol) => symbol.description === 'kIsNodeError');
  const { name, code, message } = error as Error & { code?: unknown };
  return isNodeError ? `${name} [${String(code)}]: ${message}` : Error.prototype.toString.call(error);
}

/** Installs the source-mapped stack traces for the bundle at `bundleFile` (its map beside it, `<bundleFile>.map`). */
function installSourceMappedStackTraces(bundleFile: string): void {
  const mapFile = `${bundleFile}.map`;
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const { SourceMap } = process.getBuiltinModule('node:module');
  const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');
  let sourceMap: SourceMap | null | undefined;
  const bundleMap = (): SourceMap | null => {
    if (sourceMap === undefined) {
      try {
        sourceMap = new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')));
      } catch {
        sourceMap = null;
      }
    }
    return sourceMap;
  };
  // Sources are relative to the map, as esbuild writes them; Node resolves them as URLs.
  const mapUrl = pathToFileURL(mapFile);
  const sourcePath = (source: string) => {
    const url = new URL(source, mapUrl);
    return url.protocol === 'file:' ? fileURLToPath(url) : url.href;
  };

  // Node's getOriginalSymbolName: the enclosing function's name in the map, else the one at the caller's call.
  const entryAt = (map: SourceMap, line: number | null, column: number | null): Entry => (line === null || column === null ? {} : (map.findEntry(line - 1, column - 1) as Entry));
  const originalName = (map: SourceMap, site: NodeJS.CallSite, caller: NodeJS.CallSite | undefined): string | undefined => {
    const enclosing = entryAt(map, site.getEnclosingLineNumber(), site.getEnclosingColumnNumber());
    if (enclosing.name) return enclosing.name;
    if (caller && caller.getFileName() === site.getFileName()) return entryAt(map, caller.getLineNumber(), caller.getColumnNumber()).name;
    return undefined;
  };

  // Node's serializeJSStackFrame.
  const frame = (site: NodeJS.CallSite, caller: NodeJS.CallSite | undefined): string => {
    const map = site.getFileName() === bundleFile ? bundleMap() : null;
    const { originalSource, originalLine, originalColumn } = map ? entryAt(map, site.getLineNumber(), site.getColumnNumber()) : {};
    if (!map || originalSource === undefined || originalLine === undefined || originalColumn === undefined) return String(site);
    const prefix = site.isAsync() ? 'async ' : site.isConstructor() ? 'new ' : '';
    const typeName = site.getTypeName();
    const namePrefix = typeName !== null && typeName !== 'global' ? `${typeName}.` : '';
    const name = originalName(map, site, caller) || (site.getFunctionName() ?? site.getMethodName()) || '<anonymous>';
    return `${prefix}${namePrefix}${name} (${sourcePath(originalSource)}:${originalLine + 1}:${originalColumn + 1})`;
  };

  Error.prepareStackTrace = (error: Error, sites: NodeJS.CallSite[]): string => {
    let header: string;
    try {
      header = errorHeader(error);
    } catch {
      header = '<error>';
    }
    return (
      header +
      sites
        .map((site, index) => {
          try {
            return STACK_LINE_AT + frame(site, sites[index + 1]);
          } catch {
            // A stack trace must never fail to be written.
            return STACK_LINE_AT + String(site);
          }
        })
        .join('')
    );
  };
}

// In a CommonJS bundle, __filename is the bundle's own file; an ES module (the sources run by
// tsx or jest) has none, and its stack traces are Node's. With `--enable-source-maps`, Node
// maps them itself.
if (typeof __filename === 'string' && !process.sourceMapsEnabled) installSourceMappedStackTraces(__filename);
