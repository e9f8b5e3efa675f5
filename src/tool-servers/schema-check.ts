/**
 * JSON Schema checks for tool servers: a tool's `inputSchema` must be a valid JSON Schema
 * (2020-12) describing an object, and tools/call arguments are checked against it before they go
 * upstream.
 *
 * `@cfworker/json-schema` runs in workerd (no code generation) but does not implement
 * `$dynamicRef`, so the 2020-12 meta-schema (./meta-schema) is the official one, vendored as JSON,
 * with every `"$dynamicRef": "#meta"` rewritten at load to a plain `$ref` to the top meta-schema. Without that
 * rewrite, sub-schemas are never checked and typos such as `{"type": "strin"}` pass.
 *
 * Tool calls cannot pin the gateway: every regex of a tool schema must run under the
 * linear-time engine (checked at registration, used for every validation: ./linear-regexp), and
 * `format` checks are capped and never backtrack (./safe-formats). Argument sizes are capped by
 * the caller before validation (./tool-limits). A schema that multiplies work (`$ref`, `allOf`,
 * `anyOf` used thousands of times) is refused at registration when its expanded size is over the
 * caps (./schema-size), and every validation runs under a work budget (./validation-budget).
 */
import { type OutputUnit, type Schema, type ValidationResult, Validator } from '@cfworker/json-schema';
import { checkLinearPattern, withLinearRegExp } from './linear-regexp';
import { META_SCHEMA_ID, META_SCHEMAS } from './meta-schema';
import { hardenFormats } from './safe-formats';
import { schemaPatterns } from './schema-patterns';
import { oversizedValue, schemaSize } from './schema-size';
import { MAX_SCHEMA_PATTERN_USES, MAX_SCHEMA_PATTERNS, MAX_SCHEMA_SUBSCHEMAS } from './tool-limits';
import { meterSchema, VALIDATION_BUDGET, ValidationTooCostly, withBudget } from './validation-budget';
import { isObject } from './types';

hardenFormats();

/** Problems listed for a call that fails, and characters of each: error bodies stay small. */
const MAX_PROBLEMS = 5;
const MAX_PROBLEM_CHARS = 200;

let metaValidator: Validator | undefined;

function getMetaValidator(): Validator {
  if (metaValidator === undefined) {
    const [top, ...vocabularies] = structuredClone(META_SCHEMAS);
    const validator = new Validator(top as Schema, '2020-12', false);
    for (const vocabulary of vocabularies) validator.addSchema(vocabulary);
    metaValidator = validator;
  }
  return metaValidator;
}

/**
 * The most specific errors first: cfworker reports the failing leaf and every parent above it.
 * Linear in the errors (a call can fail tens of thousands of times: one error per array item).
 */
function describe(errors: OutputUnit[]): string[] {
  const parents = new Set<string>();
  for (const { keywordLocation } of errors) {
    for (let i = keywordLocation.indexOf('/'); i >= 0; i = keywordLocation.indexOf('/', i + 1)) parents.add(keywordLocation.slice(0, i));
  }
  const leaves = errors.filter((error) => !parents.has(error.keywordLocation));
  const seen = new Set<string>();
  const out: string[] = [];
  for (const error of leaves.length > 0 ? leaves : errors) {
    const full = `${error.instanceLocation || '#'}: ${error.error}`;
    const line = full.length > MAX_PROBLEM_CHARS ? `${full.slice(0, MAX_PROBLEM_CHARS - 1)}…` : full;
    if (seen.has(line)) continue;
    seen.add(line);
    out.push(line);
    if (out.length >= MAX_PROBLEMS) break;
  }
  return out;
}

/**
 * Checks a tool's `inputSchema`: a JSON object, valid against the JSON Schema 2020-12
 * meta-schema, describing an object (`type: "object"` or no `type`), as MCP requires.
 */
export function checkToolSchema(schema: unknown): { ok: true } | { ok: false; problem: string; pattern?: string } {
  if (!isObject(schema)) return { ok: false, problem: 'inputSchema must be a JSON object' };
  const type = schema.type;
  const typeIsObject = type === undefined || type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object');
  // Sized first: the walk is linear, the meta-schema validation of a huge schema is not cheap.
  let size: ReturnType<typeof schemaSize>;
  try {
    size = schemaSize(schema, Math.max(MAX_SCHEMA_SUBSCHEMAS, MAX_SCHEMA_PATTERN_USES));
  } catch (err) {
    return { ok: false, problem: `inputSchema cannot be checked: ${errorText(err)}` }; // e.g. nested too deeply for the stack
  }
  if (size.subschemas > MAX_SCHEMA_SUBSCHEMAS) {
    return { ok: false, problem: `inputSchema expands to more than ${MAX_SCHEMA_SUBSCHEMAS} subschemas once its $refs are followed` };
  }
  if (size.patternUses > MAX_SCHEMA_PATTERN_USES) {
    return { ok: false, problem: `inputSchema runs more than ${MAX_SCHEMA_PATTERN_USES} patterns once its $refs are followed` };
  }
  const oversized = oversizedValue(schema);
  if (oversized) return { ok: false, problem: `inputSchema ${oversized}` };
  let result: ReturnType<ReturnType<typeof getMetaValidator>['validate']>;
  try {
    result = getMetaValidator().validate(structuredClone(schema));
  } catch (err) {
    return { ok: false, problem: `inputSchema cannot be checked: ${errorText(err)}` };
  }
  if (!result.valid) {
    return { ok: false, problem: `inputSchema is not valid JSON Schema: ${describe(result.errors).join('; ')}` };
  }
  if (!typeIsObject) return { ok: false, problem: 'inputSchema must describe an object (type "object")' };
  const patterns = schemaPatterns(schema, MAX_SCHEMA_PATTERNS);
  if (patterns.length > MAX_SCHEMA_PATTERNS) {
    return { ok: false, problem: `inputSchema has more than ${MAX_SCHEMA_PATTERNS} patterns` };
  }
  for (const { at, pattern } of patterns) {
    const linear = checkLinearPattern(pattern);
    if (!linear.ok) {
      return { ok: false, problem: `pattern ${JSON.stringify(pattern.slice(0, 200))} at ${at} cannot be used: ${linear.problem}`, pattern };
    }
  }
  return { ok: true };
}

/**
 * Checks tools/call arguments against the tool's input schema. `tooCostly` when the check ran out
 * of its work budget (./validation-budget): the arguments were not judged either way.
 */
export function validateArguments(schema: unknown, args: unknown): { ok: true } | { ok: false; problems: string[]; tooCostly?: true } {
  if (!isObject(args)) return { ok: false, problems: ['arguments must be a JSON object'] };
  if (!isObject(schema) && typeof schema !== 'boolean') {
    return { ok: false, problems: ['tool has no usable input schema'] };
  }
  try {
    // Validity first, stopping at the first failure: cheap whatever the arguments hold.
    const first = run(schema, args, true, VALIDATION_BUDGET);
    if (first.valid) return { ok: true };
    // Then a few problems, from a full run on a smaller budget; past it, the first problem only.
    let result = first;
    try {
      result = run(schema, args, false, PROBLEMS_BUDGET);
    } catch (err) {
      if (!(err instanceof ValidationTooCostly)) throw err;
    }
    const problems = describe(result.errors);
    return { ok: false, problems: problems.length > 0 ? problems : ['arguments do not match the tool schema'] };
  } catch (err) {
    if (err instanceof ValidationTooCostly) return { ok: false, problems: [err.message], tooCostly: true };
    return { ok: false, problems: [`arguments cannot be checked against the tool schema: ${errorText(err)}`] };
  }
}

/** Work units for listing the problems of arguments already found invalid. */
const PROBLEMS_BUDGET = VALIDATION_BUDGET / 2;

/** One metered validation of `args`, on private copies (the validator annotates its schema). */
function run(schema: unknown, args: unknown, shortCircuit: boolean, budget: number): ValidationResult {
  const own = structuredClone(schema) as Schema | boolean;
  const validator = new Validator(own, '2020-12', shortCircuit);
  const input = structuredClone(args);
  meterSchema(own, input);
  return withBudget(budget, () => withLinearRegExp(() => validator.validate(input)));
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? '').slice(0, 200);
}

export { META_SCHEMA_ID };
