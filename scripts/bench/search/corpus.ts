/**
 * A seeded corpus for the search benchmark: notes of 15..50 words drawn from 4,000 made-up words
 * (Zipf-distributed, as words in real text are), with the benchmark's query terms planted at known
 * rates so each query's share of matches is stated, not guessed.
 */

/** Terms planted in a known share of messages, and what the benchmark queries with them. */
export const PLANTED = [
  { word: 'invoice', share: 0.1 },
  { word: 'warranty', share: 0.01 },
  { word: 'late fee', share: 0.01 },
  { word: 'escalation', share: 0.001 },
  { word: 'Postgres', share: 0.001 },
] as const;

/** Share of messages carrying an invoice number `INV-2024-<n>` (a different n each). */
export const IDENTIFIER_SHARE = 0.02;

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONSONANTS = 'bcdfghjklmnprstvz';
const VOWELS = 'aeiou';

/** Messages `from`..`from + count - 1` of the corpus (the same text for the same index and seed). */
export function corpusMessages(seed: number, from: number, count: number): string[] {
  const { vocabulary, cumulative, total } = zipf(seed);
  const out: string[] = [];
  for (let i = from; i < from + count; i++) {
    const random = prng(seed * 1_000_003 + i);
    const length = 15 + Math.floor(random() * 36);
    const words: string[] = [];
    for (let w = 0; w < length; w++) {
      const x = random() * total;
      let lo = 0;
      let hi = cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cumulative[mid]! < x) lo = mid + 1;
        else hi = mid;
      }
      words.push(vocabulary[lo]!);
    }
    for (const { word, share } of PLANTED) {
      if (random() < share) words.splice(Math.floor(random() * words.length), 0, word);
    }
    if (random() < IDENTIFIER_SHARE) words.splice(Math.floor(random() * words.length), 0, `INV-2024-${String(i).padStart(4, '0')}`);
    out.push(`${words.join(' ')}.`);
  }
  return out;
}

const zipfs = new Map<number, { vocabulary: string[]; cumulative: number[]; total: number }>();

/** Zipf(1): the word of rank r is drawn with weight 1/r; cumulative weights for a binary search. */
function zipf(seed: number) {
  let made = zipfs.get(seed);
  if (!made) {
    const vocabulary = makeVocabulary(seed);
    const cumulative: number[] = [];
    let total = 0;
    for (let r = 1; r <= vocabulary.length; r++) {
      total += 1 / r;
      cumulative.push(total);
    }
    made = { vocabulary, cumulative, total };
    zipfs.set(seed, made);
  }
  return made;
}

function makeVocabulary(seed: number): string[] {
  const random = prng(seed);
  const words = new Set<string>();
  while (words.size < 4000) {
    const syllables = 1 + Math.floor(random() * 4);
    let word = '';
    for (let s = 0; s < syllables; s++) {
      word += CONSONANTS[Math.floor(random() * CONSONANTS.length)]! + VOWELS[Math.floor(random() * VOWELS.length)]!;
      if (random() < 0.3) word += CONSONANTS[Math.floor(random() * CONSONANTS.length)]!;
    }
    words.add(word);
  }
  return [...words];
}
