/**
 * The JSON state files the local stand-ins keep under DATA_DIR (the SNS emulator's topics and
 * pending deliveries, the dispatcher's queue): read at start, written whole.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The parsed file, or undefined when there is none; `what` names it in the error for a broken one. */
export function readStateFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} ${file} is not valid JSON (${(error as Error).message}); fix or remove it.`);
  }
}

/** Through a temporary file renamed over the old one: a crash mid-write leaves the previous state. */
export function writeStateFile(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
