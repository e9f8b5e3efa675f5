/**
 * A work budget for one tools/call argument validation (DESIGN §8): the caps on patterns and
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
 * - `uniqueItems` compares every pair of items: the square of the longest array in the
 *   arguments, each time a subschema holding it is applied;
 * - `enum` and `required` lists: their length, each time a subschema holding one is applied.
 */

/** Work units one validation may spend. */
export const VALIDATION_BUDGET = 20_000_000;
/** Units for applying one subschema to one value (keyword reads, locations, results). */
export const STEP_UNITS = 100;

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
const LISTS = ['enum', 'required'];

function longestArray(value: unknown, depth = 0): number {
  if (typeof value !== 'object' || value === null || depth > 64) return 0;
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  let longest = Array.isArray(value) ? value.length : 0;
  for (const child of children) longest = Math.max(longest, longestArray(child, depth + 1));
  return longest;
}

/**
 * Makes every application of a subschema of `schema` (the validator's own copy, already
 * dereferenced) charge the budget. Objects that are data (`const`, `enum`) are metered too, which
 * costs nothing: the validator never applies them. A subschema holding a draft 2019-09
 * `$recursiveRef` already owns the meter key and is left as is.
 */
export function meterSchema(schema: unknown, args: unknown): void {
  const longest = longestArray(args);
  const pairs = longest * longest;
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
      for (const keyword of LISTS) {
        const list = record[keyword];
        if (Array.isArray(list))
          Object.defineProperty(record, keyword, {
            enumerable: true,
            configurable: true,
            get: () => {
              charge(list.length);
              return list;
            },
          });
      }
      if (record.uniqueItems === true) {
        Object.defineProperty(record, 'uniqueItems', {
          enumerable: true,
          configurable: true,
          get: () => {
            charge(pairs);
            return true;
          },
        });
      }
    }
    for (const child of children) walk(child);
  };
  walk(schema);
}
