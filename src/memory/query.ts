/**
 * The search query language (docs/memory.md), web-search style as Postgres' `websearch_to_tsquery`
 * reads it: words, "quoted phrases", `or` between alternatives, `-word` / `-"phrase"` to exclude.
 * Parsed here into terms so each can be matched on its own: a term full text cannot match (an
 * identifier, a misspelling) falls back to trigram similarity, and an exclusion applies to every
 * alternative (in `websearch_to_tsquery` a `-word` after `or` binds only to its own alternative).
 * Plain TypeScript, no SQL.
 */

/** A word or a quoted phrase, as `websearch_to_tsquery` takes it (a phrase keeps its quotes). */
export interface QueryTerm {
  /** The text for `websearch_to_tsquery`: `word` or `"a phrase"`. */
  query: string;
  /** The bare text, for trigram similarity. */
  text: string;
}

export interface ParsedQuery {
  /** Any alternative matching is a hit; an alternative needs all its terms. */
  alternatives: QueryTerm[][];
  /** A message matching any of these is never a hit. */
  excluded: QueryTerm[];
}

/** Bounds on one query, so a search's cost stays bounded (documented on the route). */
export const QUERY_MAX_CHARS = 500;
export const QUERY_MAX_TERMS = 16;

const TOKEN = /(-?)"([^"]*)"?|(\S+)/g;
const HAS_WORD = /[\p{L}\p{N}]/u;

function term(text: string, quoted: boolean): QueryTerm {
  const bare = text.replace(/"/g, ' ').trim();
  return { query: quoted ? `"${bare}"` : bare, text: bare };
}

/**
 * Splits a query into alternatives of terms and exclusions. Terms without a letter or digit are
 * dropped (full text ignores them too). Returns null when nothing is left to look for (an empty
 * query, or only exclusions): such a search would rank every message the same.
 */
export function parseQuery(query: string): ParsedQuery | null {
  const alternatives: QueryTerm[][] = [[]];
  const excluded: QueryTerm[] = [];
  for (const match of query.matchAll(TOKEN)) {
    const [, dash, phrase, word] = match;
    if (word !== undefined && word.toLowerCase() === 'or') {
      if (alternatives[alternatives.length - 1]!.length > 0) alternatives.push([]);
      continue;
    }
    const negated = word !== undefined ? word.startsWith('-') : dash === '-';
    const text = phrase ?? (negated ? word!.slice(1) : word!);
    if (!HAS_WORD.test(text)) continue;
    const parsed = term(text, phrase !== undefined);
    if (negated) excluded.push(parsed);
    else alternatives[alternatives.length - 1]!.push(parsed);
  }
  const kept = alternatives.filter((terms) => terms.length > 0);
  return kept.length > 0 ? { alternatives: kept, excluded } : null;
}

/** Every distinct positive term of a parsed query, in order. */
export function positiveTerms(parsed: ParsedQuery): QueryTerm[] {
  const seen = new Map<string, QueryTerm>();
  for (const terms of parsed.alternatives) for (const t of terms) if (!seen.has(t.query)) seen.set(t.query, t);
  return [...seen.values()];
}
