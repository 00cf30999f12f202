/**
 * An UpdateItem's expression from what it changes, so that each owner writes what it sets, adds and
 * removes rather than placeholders: attribute names become `#u<n>`, values `:u<n>`. A condition
 * brings its own placeholders (any but `#u<n>` and `:u<n>`).
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
  ConditionExpression?: string;
  ExpressionAttributeNames: Record<string, string>;
  /** Undefined when there is none: DynamoDB refuses an empty map. */
  ExpressionAttributeValues?: Record<string, unknown>;
}

export function updateOf({ set = {}, add = {}, remove = [] }: Changes, condition?: Condition): UpdateParts {
  const names: Record<string, string> = { ...condition?.names };
  const values: Record<string, unknown> = { ...condition?.values };
  let next = 0;
  const name = (attribute: string) => {
    const placeholder = `#u${next++}`;
    names[placeholder] = attribute;
    return placeholder;
  };
  const value = (given: unknown) => {
    const placeholder = `:u${next++}`;
    values[placeholder] = given;
    return placeholder;
  };
  const sets = Object.entries(set).filter(([, given]) => given !== undefined).map(([attribute, given]) => `${name(attribute)} = ${value(given)}`);
  const adds = Object.entries(add).filter(([, count]) => count !== 0).map(([attribute, count]) => `${name(attribute)} ${value(count)}`);
  const removes = remove.map(name);
  return {
    UpdateExpression: [sets.length && `SET ${sets.join(', ')}`, adds.length && `ADD ${adds.join(', ')}`, removes.length && `REMOVE ${removes.join(', ')}`]
      .filter(Boolean)
      .join(' '),
    ...(condition && { ConditionExpression: condition.expression }),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: Object.keys(values).length > 0 ? values : undefined,
  };
}

/** Both conditions must hold. */
export function allOf(...conditions: Condition[]): Condition {
  return {
    expression: conditions.map((condition) => `(${condition.expression})`).join(' AND '),
    names: Object.assign({}, ...conditions.map((condition) => condition.names)),
    values: Object.assign({}, ...conditions.map((condition) => condition.values)),
  };
}

/** The item exists. */
export const EXISTS: Condition = { expression: 'attribute_exists(sk)' };
