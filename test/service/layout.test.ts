/**
 * The layout's rules, read from the project's own imports: the domain (subscriptions, delivery, dead letters,
 * reconciliation) knows nothing of HTTP, the CDK app nothing of the local stand-ins, and no
 * module imports itself through a circle. Every relative import counts: `import … from`,
 * `export … from`, `import type`, a bare `import '…'`, and `import('…')` with a literal.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ROOTS = ['functions', 'shared', 'infra', 'admin', 'test'];
const SOURCE = /\.(ts|mts|js|mjs)$/;
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'cdk.out']);

/** Project-relative paths with '/', as the failure messages show them. */
const projectPath = (absolute: string) => relative(PROJECT_ROOT, absolute).split(sep).join('/');

function sourceFilesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      return SKIPPED_DIRECTORIES.has(entry.name) || entry.name.startsWith('.') ? [] : sourceFilesUnder(path);
    }
    return entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier the file names, from the syntax tree (so comments and strings never count). */
function specifiersOf(fileName: string, text: string): string[] {
  const kind = /\.m?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push(argument.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const { expression } = node.moduleReference;
      if (ts.isStringLiteral(expression)) found.push(expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/** The file a relative specifier names, as the bundler resolves it; undefined for a non-source file. */
function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [
    base,
    ...['.ts', '.mts', '.js', '.mjs'].map((extension) => base + extension),
    // TypeScript's ESM style: './x.js' names './x.ts'.
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    ...['index.ts', 'index.js'].map((index) => join(base, index)),
  ];
  return candidates.find((candidate) => SOURCE.test(candidate) && isFile(candidate));
}

/** Each project file (project-relative) and the project files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ROOTS.flatMap((root) => sourceFilesUnder(join(PROJECT_ROOT, root)))) {
    const targets = specifiersOf(file, readFileSync(file, 'utf8'))
      .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
      .flatMap((specifier) => {
        const target = resolveRelative(file, specifier);
        return target ? [projectPath(target)] : [];
      });
    graph.set(projectPath(file), [...new Set(targets)]);
  }
  return graph;
}

/** `from → to` for every import of a file under one of `from` into a file under `into`. */
function importsAcross(graph: Map<string, string[]>, from: readonly string[], into: string): string[] {
  return [...graph].flatMap(([file, targets]) =>
    from.some((folder) => file.startsWith(`${folder}/`))
      ? targets.filter((target) => target.startsWith(`${into}/`)).map((target) => `${file} → ${target}`)
      : [],
  );
}

/**
 * One circle through each group of files that import each other (Tarjan's strongly connected
 * components), as `a → b → … → a`.
 */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const edgesOf = (file: string) => (graph.get(file) ?? []).filter((target) => graph.has(target));

  const connect = (file: string): void => {
    index.set(file, next);
    lowLink.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of edgesOf(file)) {
      if (!index.has(target)) {
        connect(target);
        lowLink.set(file, Math.min(lowLink.get(file)!, lowLink.get(target)!));
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file)!, index.get(target)!));
      }
    }
    if (lowLink.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || edgesOf(file).includes(file)) components.push(component);
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);

  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0]!;
    // The shortest way back to the start inside the component (breadth first).
    const cameFrom = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    search: while (queue.length > 0) {
      const file = queue.shift()!;
      for (const target of edgesOf(file).filter((target) => members.has(target))) {
        if (target === start) {
          last = file;
          break search;
        }
        if (!cameFrom.has(target)) {
          cameFrom.set(target, file);
          queue.push(target);
        }
      }
    }
    const path = [start];
    for (let file = last!; file !== start; file = cameFrom.get(file)!) path.splice(1, 0, file);
    const others = component.length > path.length ? ` (with ${component.length - path.length} more files in the same tangle)` : '';
    return `${[...path, start].join(' → ')}${others}`;
  });
}

const graph = importGraph();

describe("the project's imports", () => {
  it('are read from every source file, static, type-only and dynamic alike', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('functions/createSubscription.ts')).toContain('shared/http/operation.ts');
    // `await import('../../shared/contract/openapi-document')`, on first use.
    expect(graph.get('test/support/openapi-responses.ts')).toContain('shared/contract/openapi-document.ts');
    // `import type { … }` only.
    expect(graph.get('shared/http/json-input.ts')).toContain('shared/contract/body-reader.ts');
    // The parser itself, on the forms a regular expression would miss or mistake.
    expect(
      specifiersOf(
        'sample.ts',
        [
          "import a from './a';",
          "import type { B } from './b';",
          "export { c } from './c';",
          "export * from './d';",
          "import './e';",
          "const f = await import('./f');",
          "type G = import('./g').G;",
          "// import h from './h';",
          "const text = \"import i from './i'\";",
        ].join('\n'),
      ),
    ).toEqual(['./a', './b', './c', './d', './e', './f', './g']);
  });

  it('keep the domain free of HTTP: shared/subscriptions, shared/delivery, shared/dead-letters, shared/attempts and shared/reconciliation import nothing from shared/http', () => {
    expect(importsAcross(graph, ['shared/subscriptions', 'shared/delivery', 'shared/dead-letters', 'shared/attempts', 'shared/reconciliation'], 'shared/http')).toEqual([]);
  });

  it('keep the CDK app free of the local stand-ins: infra/aws imports nothing from infra/local', () => {
    expect(importsAcross(graph, ['infra/aws'], 'infra/local')).toEqual([]);
  });

  it('keep the library free of where it runs: shared and functions import nothing from infra, admin or test', () => {
    for (const outside of ['infra', 'admin', 'test']) {
      expect(importsAcross(graph, ['shared', 'functions'], outside)).toEqual([]);
    }
  });

  it("keep each bundle to its own settings: functions and shared import settings from shared/environment by name, never its `config` of them all", () => {
    // A handler importing `config` (or the module as a namespace) would carry every setting's rule (shared/environment.ts).
    const wholesale = [...graph.keys()]
      .filter((file) => /^(functions|shared)\//.test(file) && file !== 'shared/environment.ts')
      .filter((file) => /import\s*(?:\{[^}]*\bconfig\b[^}]*\}|\*\s*as\s+\w+)\s*from\s*'[^']*\/environment'/.test(readFileSync(join(PROJECT_ROOT, file), 'utf8')));
    expect(wholesale).toEqual([]);
  });

  it('form no circle', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('circles are found and named by their files', () => {
    const tangled = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(importCircles(tangled)).toEqual(['a.ts → b.ts → c.ts → a.ts', 'e.ts → e.ts']);
  });
});

/** At most this many lines in a source file: past it, a file holds several concerns, to be split where a reader would look for each. */
const MAX_SOURCE_LINES = 400;

/**
 * The source files git tracks: what people write and read, suites (*.test.ts) included, in every
 * language the project holds: TypeScript, the admin page's JavaScript, CSS and HTML, the test
 * support's and jest's JavaScript, the DynamoDB Local launcher's Java, and scripts (a `.sh` file or
 * an extensionless file starting with `#!`, as .ci/run). Not source, so not counted: data and
 * prose (JSON: recordings, sample events, package files; Markdown; images, the SVG icon included),
 * and what is generated or installed (shared/contract/generated, node_modules, cdk.out), which
 * git does not track.
 */
const SOURCE_EXTENSION = /\.(ts|mts|cts|js|mjs|cjs|css|html|java|sh)$/;

function trackedSourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\0').filter((path) => path !== '');
  const isScript = (path: string) => !/\.[^/]+$/.test(path.slice(path.lastIndexOf('/') + 1)) && readFileSync(join(PROJECT_ROOT, path), 'utf8').startsWith('#!');
  return listed.filter((path) => (SOURCE_EXTENSION.test(path) && !path.endsWith('.d.ts')) || isScript(path));
}

/** Lines of text, as an editor numbers them: a last line without its newline counts too. */
const lineCount = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

describe('the suites jest starts first in a fresh clone (test/support/slowest-first-sequencer.js)', () => {
  it('are each a tracked suite, named once', () => {
    const text = readFileSync(join(PROJECT_ROOT, 'test/support/slowest-first-sequencer.js'), 'utf8');
    const listed = [...text.slice(text.indexOf('STARTED_FIRST = [')).matchAll(/'(test\/[^']+\.test\.ts)'/g)].map((match) => match[1]!);
    const suites = execFileSync('git', ['ls-files', '-z', '--', 'test/*.test.ts'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\0');
    expect(listed.length).toBeGreaterThan(5);
    expect(listed.filter((suite) => !suites.includes(suite))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });
});

describe('the source files', () => {
  const files = trackedSourceFiles();

  it('are every tracked source file: TypeScript, suites included, the JavaScript, CSS and HTML, the Java and the scripts; no data, prose or image', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'functions/createSubscription.ts',
        'shared/logger.ts',
        'infra/local/stack/local-stack.ts',
        'test/hostile/requests.ts',
        'test/support/test-env.ts',
        'test/service/layout.test.ts',
        'admin/app.js',
        'admin/api-client.js',
        'admin/admin.css',
        'admin/index.html',
        'test/support/suite-times-reporter.js',
        'jest.config.js',
        'infra/local/dynamodb/LoopbackDynamoDBLocal.java',
        '.ci/run',
      ]),
    );
    expect(files.filter((path) => /\.(json|md|svg|png)$/.test(path) || path === 'LICENSE' || path === '.gitignore')).toEqual([]);
  });

  it(`hold at most ${MAX_SOURCE_LINES} lines each, so that a reader can hold one`, () => {
    const over = files.flatMap((path) => {
      const lines = lineCount(readFileSync(join(PROJECT_ROOT, path), 'utf8'));
      return lines > MAX_SOURCE_LINES ? [`${path}: ${lines} lines`] : [];
    });
    expect(over).toEqual([]);
  });

  it('are counted in lines as an editor numbers them, a last line without its newline included', () => {
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount('a\nb\n')]).toEqual([0, 1, 1, 2, 2]);
  });
});

describe('the licence', () => {
  it('is MIT, in LICENSE and in package.json alike, so a user can tell what they may do with it', () => {
    const licence = readFileSync(join(PROJECT_ROOT, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) 2026 The webhook-subscriptions authors\n/);
    expect(licence).toContain('Permission is hereby granted, free of charge');
    const packageJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { license?: string };
    expect(packageJson.license).toBe('MIT');
  });
});

describe('docs/deploy.md', () => {
  it('names every function SAM can invoke (one per file of functions/), each with its sample event', () => {
    const deployPage = readFileSync(join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');
    const samSection = deployPage.slice(deployPage.indexOf('## Run one function with SAM'), deployPage.indexOf('### Against a deployed stack'));
    const functionIds = readdirSync(join(PROJECT_ROOT, 'functions'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => name.replace(/\.ts$/, ''));
    expect(functionIds.length).toBeGreaterThan(10);
    expect(functionIds.filter((id) => !samSection.includes(`\`${id}\``))).toEqual([]);
    const sampleEvents = readdirSync(join(PROJECT_ROOT, 'events')).map((name) => name.replace(/\.json$/, ''));
    expect(functionIds.filter((id) => !sampleEvents.includes(id))).toEqual([]);
  });
});
