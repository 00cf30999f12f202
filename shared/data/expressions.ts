/**
 * An UpdateItem's expression from what it changes, for the writes whose attributes vary (counters
 * named by their day or hour, the fields a request changes): attribute names become `#u<n>`,
 * values `:u<n>`. A condition brings its own placeholders (any but those).
 */
export interface Changes {
  /** Attributes set; an undefined value is left out. */
  readonly set?: Readonly<Record<string, unknown>>;
  /** Numbers added (negative: taken away); a zero is left out. */
  readonly add?: Readonly<Record<string, number>>;
  readonly remove?: readonly string[];
}

export interface Condition {
  readonly expression: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, unknown>>;
}

export interface UpdateParts {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  /** Undefined when there is none: DynamoDB refuses an empty map. */
  ExpressionAttributeValues?: Record<string, unknown>;
}

export function updateOf({ set = {}, add = {}, remove = [] }: Changes): UpdateParts {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  let next = 0;
  const clause = (word: string, entries: [string, unknown][], between?: string) =>
    entries.length > 0
      ? `${word} ${entries
          .map(([attribute, given]) => {
            const at = next++;
            names[`#u${at}`] = attribute;
            if (between === undefined) return `#u${at}`;
            values[`:u${at}`] = given;
            return `#u${at}${between}:u${at}`;
          })
          .join(', ')}`
      : '';
  const UpdateExpression = [
    clause('SET', Object.entries(set).filter(([, given]) => given !== undefined), ' = '),
    clause('ADD', Object.entries(add).filter(([, count]) => count !== 0), ' '),
    clause('REMOVE', remove.map((attribute) => [attribute, 0])),
  ]
    .filter(Boolean)
    .join(' ');
  return { UpdateExpression, ExpressionAttributeNames: names, ExpressionAttributeValues: Object.keys(values).length > 0 ? values : undefined };
}
