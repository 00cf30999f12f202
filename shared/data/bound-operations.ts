/**
 * Operations written as plain functions that take what they work on first (a table, an SNS
 * client with its settings), bound to it for the code that calls them. Plain functions rather
 * than a class's methods, so that a function's bundle carries only the operations it names: a
 * class's methods all stay in every bundle that constructs it, with the SDK commands they send
 * (docs/decisions/bundles-carry-only-their-operation.md).
 */

export type Operation<Target> = (target: Target, ...args: never[]) => unknown;
type BoundTo<Target, Op> = Op extends (target: Target, ...args: infer Args) => infer Result ? (...args: Args) => Result : never;

/** The operations, each without its first parameter: what the domain's functions take. */
export type Bound<Target, Operations> = { readonly [Name in keyof Operations]: BoundTo<Target, Operations[Name]> };

/** `operations`, each bound to `target`. */
export function bindOperations<Target, Operations extends { [Name in keyof Operations]: Operation<Target> }>(
  target: Target,
  operations: Operations,
): Bound<Target, Operations> {
  return Object.fromEntries(
    Object.entries(operations).map(([name, operation]) => [name, (...args: never[]) => (operation as Operation<Target>)(target, ...args)]),
  ) as Bound<Target, Operations>;
}

/** Operations on the table, bound to it: `repositoryOf(table, { find, update })` (bindOperations under its name). */
export { bindOperations as repositoryOf };
