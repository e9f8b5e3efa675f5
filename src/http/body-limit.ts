import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { readAtMost } from '../net/read-at-most';

/** How much of an oversized body is read and dropped before answering 413 (see below). */
const DRAIN_CAP_BYTES = 8 * 1024 * 1024;

/**
 * Bodies over MAX_BODY_BYTES get 413, whether the length is declared or streamed. Before
 * answering, the rest of a moderately oversized body is read and dropped: closing a socket with
 * unread data resets it, and the client would lose our 413 to a connection error.
 */
export function bodyLimit(): MiddlewareHandler<AppBindings> {
  return async function bodyLimitMiddleware(c, next) {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const max = c.var.config.maxBodyBytes;
    const tooLarge = () => new AppError('payload_too_large', `The request body is larger than ${max} bytes`);
    const declared = raw.headers.has('transfer-encoding') ? null : raw.headers.get('content-length');
    if (declared !== null && Number(declared) <= max) return next(); // the runtime enforces the declared length
    const reader = raw.body.getReader();
    if (declared !== null) {
      await drain(reader, 0);
      throw tooLarge();
    }
    const read = await readAtMost(reader, max);
    if (!read.ok) {
      await drain(reader, read.read);
      throw tooLarge();
    }
    c.req.raw = new Request(raw, { body: read.bytes });
    return next();
  };
}

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number): Promise<void> {
  let read = alreadyRead;
  try {
    while (read < DRAIN_CAP_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // the client went away: nothing to answer
  }
}
