/**
 * How a hit's score is made: the sum of the rankings below, each an SQL expression over the
 * message row `m`. The seam for a second ranking (semantic search by embeddings, once pgvector
 * can run on the local stack, fused by reciprocal rank): a ranking is one entry here.
 */
import type { QueryTerm } from './query';

/** Values of an SQL statement's placeholders, in order. */
export type SqlParams = unknown[];

export interface ScoringTerms {
  /** Terms full text matches somewhere in the agent's memory. */
  matched: QueryTerm[];
  /** Terms it matches nowhere: judged by trigram similarity. */
  fuzzy: QueryTerm[];
}

export interface Ranking {
  name: string;
  /** An SQL expression (higher is better) for this search, or null when it has nothing to add. */
  score(params: SqlParams, terms: ScoringTerms): string | null;
}

function param(params: SqlParams, value: unknown): string {
  params.push(value);
  return `$${params.length}`;
}

/**
 * Full text: `ts_rank` over the English stems and over the exact words (a message with the very
 * word the query has ranks above one with another form of it), each divided by 1 + log(length)
 * so a long note does not win by length alone.
 */
export const fullTextRanking: Ranking = {
  name: 'full-text',
  score(params, { matched }) {
    if (matched.length === 0) return null;
    const p = param(params, matched.map((t) => t.query).join(' or '));
    return `ts_rank(m.search_en, websearch_to_tsquery('english', ${p}), 1) + ts_rank(m.search_simple, websearch_to_tsquery('simple', ${p}), 1)`;
  },
};

/** Trigram similarity (0..1) of each term full text cannot match to its closest run of words. */
export const trigramRanking: Ranking = {
  name: 'trigram',
  score(params, { fuzzy }) {
    if (fuzzy.length === 0) return null;
    return fuzzy.map((t) => `public.strict_word_similarity(${param(params, t.text)}, m.message)`).join(' + ');
  },
};

export const RANKINGS: readonly Ranking[] = [fullTextRanking, trigramRanking];
