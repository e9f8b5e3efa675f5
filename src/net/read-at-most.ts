/** The end of a stream read with a cap: every byte in one buffer, or how much had come when it passed the cap. */
export type ReadAtMost = { ok: true; bytes: Uint8Array } | { ok: false; read: number };

/** One read from a byte stream. */
export type Chunk = { done: true; value?: undefined } | { done: false; value: Uint8Array };

/**
 * Reads `reader` to its end into one buffer, stopping as soon as more than `max` bytes have come;
 * the caller then cancels or drains the reader as its protocol needs. `next` reads one chunk
 * (a caller with a deadline passes its own). Serves request bodies, RPC answers and tool replies.
 */
export async function readAtMost(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  max: number,
  next: (reader: ReadableStreamDefaultReader<Uint8Array>) => Promise<Chunk> = (r) => r.read() as Promise<Chunk>,
): Promise<ReadAtMost> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await next(reader);
    if (done) break;
    size += value.byteLength;
    if (size > max) return { ok: false, read: size };
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, bytes };
}
