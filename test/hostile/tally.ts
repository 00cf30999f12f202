/** The count of the hostile suite's answers, by kind and status (checks.ts). */
import { type AnswerKind, isPlainObject } from './answer-checks';
import type { RawAnswer } from './raw-http';
import type { OperationName } from './requests';

const OVERLOAD_KEY = '503 SERVICE_UNAVAILABLE (overload)';
const FAULT_KEY = ' (fault)';

export class Tally {
  private readonly counts = new Map<OperationName, Map<string, number>>();

  add(operation: OperationName, kind: AnswerKind, answer: RawAnswer): void {
    const code = isPlainObject(answer.json) && typeof answer.json.code === 'string' ? answer.json.code : '';
    const key =
      kind === 'gateway' ? `${answer.status} API Gateway` : kind === 'refused' ? `${answer.status} ${code}` : kind === 'overload' ? OVERLOAD_KEY : `${answer.status}`;
    this.count(operation, key);
  }

  /** An answer that failed the suite as a ServiceFault. */
  addFault(operation: OperationName, answer: RawAnswer): void {
    this.count(operation, `${answer.status}${FAULT_KEY}`);
  }

  overloads(operation: OperationName): number {
    return this.counts.get(operation)?.get(OVERLOAD_KEY) ?? 0;
  }

  faults(operation: OperationName): number {
    return [...(this.counts.get(operation) ?? [])].filter(([key]) => key.endsWith(FAULT_KEY)).reduce((sum, [, count]) => sum + count, 0);
  }

  private count(operation: OperationName, key: string): void {
    const counts = this.counts.get(operation) ?? new Map<string, number>();
    counts.set(key, (counts.get(key) ?? 0) + 1);
    this.counts.set(operation, counts);
  }

  requests(operation: OperationName): number {
    return [...(this.counts.get(operation)?.values() ?? [])].reduce((sum, count) => sum + count, 0);
  }

  byStatus(operation: OperationName): Record<string, number> {
    const byStatus: Record<string, number> = {};
    for (const [key, count] of this.counts.get(operation) ?? []) {
      const status = key.endsWith('API Gateway') ? key : key.split(' ')[0]!;
      byStatus[status] = (byStatus[status] ?? 0) + count;
    }
    return byStatus;
  }

  format(): string {
    const lines: string[] = [];
    for (const [operation, counts] of this.counts) {
      const detail = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `${key}: ${count}`);
      lines.push(`${operation} (${this.requests(operation)} requests; overload ${this.overloads(operation)}, faults ${this.faults(operation)}): ${detail.join(', ')}`);
    }
    return lines.join('\n');
  }
}
