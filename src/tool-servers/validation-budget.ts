/**
 * A work budget for one tools/call argument validation (a call cannot pin the isolate): the caps on patterns and
 * schema size are counted in the schema as written, but `$ref`, `allOf`/`anyOf` and `items` make
 * the validator run the same subschema (and its regexes) once per use and per argument value.
 * So the work itself is counted while it runs, and the validation stops past `VALIDATION_BUDGET`
 * units with `ValidationTooCostly`, answered 400 `invalid_tool_arguments`.
 *
 * What costs what (measured: about 10 ns a unit for subschemas, 0.01 to 100 ns for regexes, whose
 * RE2 bound of length times program size is often beaten; the whole budget is 0.2 to 2 s of CPU):
 * - a regex test: 32, plus the input's length times the compiled program's size (./linear-regexp);
 * - a subschema applied to one value: `STEP_UNITS`. `@cfworker/json-schema` reads a handful of
 *   keywords of the subschema on every application; `meterSchema` installs a counting getter for
 *   one of them (`__absolute_recursive_ref__`, its own bookkeeping, otherwise unset) on every
 *   object of the validator's private copy of the schema;
 * - `uniqueItems` compares every pair of items, and comparing two items walks both: for the
 *   costliest array of the arguments, its length squared plus, for every pair, the nodes of both
 *   items (`2 (n - 1)` times the nodes of all its items), each time a subschema holding it is
 *   applied;
 * - `const` and `enum`: `VALUE_UNITS_PER_BYTE` per byte of their JSON (the comparison walks the
 *   value, a failure writes it into the error), each time a subschema holding one is applied;
 * - `required` lists: their length, each time a subschema holding one is applied.
 */

/** Work units one validation may spend. */
export const VALIDATION_BUDGET = 20_000_000;
/** Units for applying one subschema to one value (keyword reads, locations, results). */
export const STEP_UNITS = 100;
/** Units per byte of a `const` or `enum` value's JSON, per application. */
export const VALUE_UNITS_PER_BYTE = 4;

export class ValidationTooCostly extends Error {
  constructor() {
    super("the arguments take too much work to check against this tool's schema");
    this.name = 'ValidationTooCostly';
  }
}

let remaining = Number.POSITIVE_INFINITY;

/** Spends `units` of the running validation's budget; throws `ValidationTooCostly` past it. */
export function charge(units: number): void {
  remaining -= units;
  if (remaining < 0) throw new ValidationTooCostly();
}

/** Runs a synchronous validation with a fresh budget of `units`. */
export function withBudget<T>(units: number, run: () => T): T {
  const saved = remaining;
  remaining = units;
  try {
    return run();
  } finally {
    remaining = saved;
  }
}

const METER = '__absolute_recursive_ref__';

/**
 * The work `uniqueItems` can cost on the costliest array of `value`: every ordered pair is
 * visited (`n * n`), and a pair of objects or arrays is compared by walking both (the nodes of
 * each). Returns the nodes of `value` too, so the walk is linear.
 */
function uniqueItemsCost(value: unknown, depth = 0): { nodes: number; cost: number } {
  if (typeof value !== 'object' || value === null || depth > 64) return { nodes: 1, cost: 0 };
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  let nodes = 1;
  let cost = 0;
  let walked = 0;
  for (const child of children) {
    const inner = uniqueItemsCost(child, depth + 1);
    nodes += inner.nodes;
    cost = Math.max(cost, inner.cost);
    if (typeof child === 'object' && child !== null) walked += inner.nodes;
  }
  if (Array.isArray(value)) {
    const n = value.length;
    cost = Math.max(cost, n * n + 2 * Math.max(n - 1, 0) * walked);
  }
  return { nodes, cost };
}

function jsonSize(value: unknown): number {
  return (JSON.stringify(value) ?? '').length;
}

/** Replaces `record[keyword]` with a getter that charges `units` on every read. */
function chargeOnRead(record: Record<string, unknown>, keyword: string, units: number): void {
  const value = record[keyword];
  Object.defineProperty(record, keyword, {
    enumerable: true,
    configurable: true,
    get: () => {
      charge(units);
      return value;
    },
  });
}

/**
 * Makes every application of a subschema of `schema` (the validator's own copy, already
 * dereferenced) charge the budget. Objects that are data (`const`, `enum`) are metered too, which
 * costs nothing: the validator never applies them. A subschema holding a draft 2019-09
 * `$recursiveRef` already owns the meter key and is left as is.
 */
export function meterSchema(schema: unknown, args: unknown): void {
  const unique = uniqueItemsCost(args).cost;
  const seen = new Set<object>();
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    if (!Array.isArray(node)) {
      const record = node as Record<string, unknown>;
      if (!Object.hasOwn(record, METER)) {
        Object.defineProperty(record, METER, { enumerable: false, configurable: true, get: () => void charge(STEP_UNITS) });
      }
      if (Array.isArray(record.required)) chargeOnRead(record, 'required', record.required.length);
      for (const keyword of ['const', 'enum']) {
        if (Object.hasOwn(record, keyword)) chargeOnRead(record, keyword, 1 + VALUE_UNITS_PER_BYTE * jsonSize(record[keyword]));
      }
      if (record.uniqueItems === true) chargeOnRead(record, 'uniqueItems', unique);
    }
    for (const child of children) walk(child);
  };
  walk(schema);
}
