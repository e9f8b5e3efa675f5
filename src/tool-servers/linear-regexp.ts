/**
 * Tool-schema regexes under a linear-time engine (a tool call cannot pin the isolate): `pattern`, `patternProperties` and
 * `propertyNames` come from a third-party server, and V8's backtracking engine takes exponential
 * time on some of them (`^(a+)+$` against `"a"x28 + "!"` takes a second, and doubles with each
 * character). They run on re2js, the pure-JS port of RE2: time linear in the input, no code
 * generation (so it runs in workerd), about 150 KB minified.
 *
 * `@cfworker/json-schema` builds its regexes with `new RegExp(pattern, 'u')`; `withLinearRegExp`
 * points the global `RegExp` at `LinearRegExp` for the duration of one synchronous validation
 * (nothing else runs in the isolate meanwhile) and restores it. Regex literals elsewhere are not
 * affected. Syntax RE2 cannot run in linear time (lookaround, backreferences) is refused at
 * registration by `checkLinearPattern`, naming the pattern. Linear is not cheap when a schema
 * runs a regex thousands of times (`$ref`, `allOf`, `items`): every test charges the input's
 * length times the program's size to the validation's budget (./validation-budget).
 */
import { RE2JS } from 're2js';
import { charge } from './validation-budget';

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_CHARS = 1_000;
/** Largest compiled program accepted (RE2 instructions): bounds the work per input character. */
export const MAX_PATTERN_PROGRAM = 2_000;

/** Budget units for one test besides the scan (a matcher, its state): ./validation-budget. */
const TEST_UNITS = 32;

const CACHE_LIMIT = 512;
const compiled = new Map<string, RE2JS>();

export type PatternCheck = { ok: true } | { ok: false; problem: string };

function compile(source: string): RE2JS {
  const cached = compiled.get(source);
  if (cached) return cached;
  if (source.length > MAX_PATTERN_CHARS) throw new SyntaxError(`longer than ${MAX_PATTERN_CHARS} characters`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (err) {
    const reason = err instanceof Error ? (err.message.split('\n')[0] ?? '').slice(0, 200) : 'cannot be compiled';
    throw new SyntaxError(`not supported by the linear-time engine (lookaround and backreferences are not): ${reason}`);
  }
  if (re.programSize() > MAX_PATTERN_PROGRAM)
    throw new SyntaxError(`too complex (program of ${re.programSize()} instructions, at most ${MAX_PATTERN_PROGRAM})`);
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(source, re);
  return re;
}

/** Whether a schema regex can run under the linear-time engine, and why not. */
export function checkLinearPattern(source: string): PatternCheck {
  try {
    compile(source);
    return { ok: true };
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message : 'cannot be compiled' };
  }
}

/** The subset of RegExp that `@cfworker/json-schema` uses (`new RegExp(p, 'u').test(s)`), on RE2. */
class LinearRegExp {
  readonly source: string;
  readonly flags: string;
  readonly #re: RE2JS;
  readonly #size: number;
  constructor(pattern: string | RegExp, flags = '') {
    this.source = typeof pattern === 'string' ? pattern : pattern.source;
    if (!/^u?$/.test(flags)) throw new SyntaxError(`flags ${flags} are not supported for schema patterns`);
    this.flags = flags;
    this.#re = compile(this.source);
    this.#size = this.#re.programSize();
  }
  test(input: string): boolean {
    const text = String(input);
    charge(TEST_UNITS + text.length * this.#size);
    return this.#re.matcher(text).find();
  }
}

/** Runs a synchronous function (a schema validation) with `RegExp` on the linear-time engine. */
export function withLinearRegExp<T>(run: () => T): T {
  const native = globalThis.RegExp;
  globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor;
  try {
    return run();
  } finally {
    globalThis.RegExp = native;
  }
}
