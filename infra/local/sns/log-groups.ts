/**
 * The CloudWatch Logs side of the emulator's delivery status logging: the log groups SNS would have
 * made (`sns/<region>/<account>/<topic>[/Failure]`, on the first record written there, keeping
 * records forever), and the two CloudWatch Logs actions the reconciler calls on them,
 * DescribeLogGroups (by name prefix, 50 a page) and PutRetentionPolicy (CloudWatch Logs API
 * Reference), in CloudWatch Logs' JSON protocol (`X-Amz-Target: Logs_20140328.<action>`), on the
 * emulator's port. The records themselves go to the local stack's consumer (onDeliveryStatus).
 * Kept in memory only.
 */

export interface LogGroupRecord {
  creationTime: number;
  retentionInDays?: number;
}

/** The target prefix of every CloudWatch Logs request. */
export const LOGS_TARGET_PREFIX = 'Logs_20140328.';
const PAGE = 50;
/** PutRetentionPolicy's retentionInDays values (CloudWatch Logs API Reference, "PutRetentionPolicy"). */
const RETENTIONS = new Set([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653]);

export class LogsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** One CloudWatch Logs action on the log groups; its JSON answer, or a LogsError. */
export function logsAction(groups: Map<string, LogGroupRecord>, target: string, body: string, arnOf: (name: string) => string): unknown {
  let input: Record<string, unknown>;
  try {
    input = (body ? JSON.parse(body) : {}) as Record<string, unknown>;
  } catch {
    throw new LogsError('SerializationException', 'The request body is not JSON.');
  }
  switch (target.slice(LOGS_TARGET_PREFIX.length)) {
    case 'DescribeLogGroups': {
      const prefix = typeof input.logGroupNamePrefix === 'string' ? input.logGroupNamePrefix : '';
      const names = [...groups.keys()].filter((name) => name.startsWith(prefix)).sort();
      const start = typeof input.nextToken === 'string' ? Number(input.nextToken) || 0 : 0;
      const page = names.slice(start, start + PAGE);
      return {
        logGroups: page.map((logGroupName) => {
          const { creationTime, retentionInDays } = groups.get(logGroupName)!;
          return { logGroupName, creationTime, ...(retentionInDays !== undefined && { retentionInDays }), arn: `${arnOf(logGroupName)}:*`, storedBytes: 0 };
        }),
        ...(start + PAGE < names.length && { nextToken: String(start + PAGE) }),
      };
    }
    case 'PutRetentionPolicy': {
      const { logGroupName, retentionInDays } = input;
      if (typeof retentionInDays !== 'number' || !RETENTIONS.has(retentionInDays)) {
        throw new LogsError('InvalidParameterException', `1 validation error detected: Value '${String(retentionInDays)}' at 'retentionInDays' failed to satisfy constraint: Member must satisfy enum value set: [${[...RETENTIONS].join(', ')}]`);
      }
      const group = typeof logGroupName === 'string' ? groups.get(logGroupName) : undefined;
      if (!group) throw new LogsError('ResourceNotFoundException', 'The specified log group does not exist.');
      group.retentionInDays = retentionInDays;
      return {};
    }
    default:
      throw new LogsError('UnknownOperationException', `The emulator serves no CloudWatch Logs action ${target}.`);
  }
}
