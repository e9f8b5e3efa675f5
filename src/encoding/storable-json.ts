/**
 * JSON that Postgres stores: `jsonb` (and `text`) refuse NUL (`\u0000`) and a lone surrogate
 * (`\ud800`), both of which JSON.stringify writes without complaint. A model or a tool server
 * chooses such strings (a tool call's arguments), so what is remembered goes through here first.
 */

const storableText = (text: string): string => text.replaceAll('\u0000', '\uFFFD').toWellFormed();

/**
 * The JSON text of `value` with every string and object key made storable: NUL becomes U+FFFD,
 * a lone surrogate U+FFFD (`toWellFormed`). Otherwise as JSON.stringify writes it.
 */
export function storableJsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'string') return storableText(v);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      // Keys too: a model names argument keys as freely as it fills them.
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [storableText(k), x]));
    }
    return v;
  });
}

/**
 * `value` as it reads back once stored: the JSON value of `storableJsonText(value)`. Hand the
 * first caller this, so a replayed answer is the one it got.
 */
export function storableJson<T>(value: T): T {
  return JSON.parse(storableJsonText(value)) as T;
}
