/**
 * The model's fetch (src/replies/model-fetch.ts boundedFetch): LLM_TIMEOUT_MS is an idle timeout, for
 * the answer's headers and then between two chunks, not a deadline for the whole answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, type CallClock } from '../../src/replies/model-fetch';

let server: Server;
let base: string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  // `/chunks?n=&every=&headersAfter=`: n chunks, `every` ms apart, after headers sent `headersAfter` ms late.
  server = createServer(async (req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    await sleep(Number(q.get('headersAfter') ?? 0));
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.flushHeaders();
    for (let i = 0; i < Number(q.get('n')); i++) {
      await sleep(Number(q.get('every')));
      if (res.destroyed) return;
      res.write(`${i};`);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const TIMEOUT_MS = 500;

describe('boundedFetch', () => {
  it('reads an answer whose chunks come within the timeout, however long it is in all', async () => {
    const clock: CallClock = { timedOut: false };
    const res = await boundedFetch(TIMEOUT_MS, new AbortController().signal, clock)(`${base}/chunks?n=10&every=100`);
    expect(await res.text()).toBe('0;1;2;3;4;5;6;7;8;9;');
    expect(clock.timedOut).toBe(false);
  });

  it('a pause between two chunks longer than the timeout fails the read as a timeout', async () => {
    const clock: CallClock = { timedOut: false };
    const res = await boundedFetch(TIMEOUT_MS, new AbortController().signal, clock)(`${base}/chunks?n=2&every=1200`);
    await expect(res.text()).rejects.toThrow();
    expect(clock.timedOut).toBe(true);
  });

  it('headers later than the timeout fail the call as a timeout', async () => {
    const clock: CallClock = { timedOut: false };
    await expect(
      boundedFetch(TIMEOUT_MS, new AbortController().signal, clock)(`${base}/chunks?n=1&every=0&headersAfter=1200`),
    ).rejects.toThrow();
    expect(clock.timedOut).toBe(true);
  });

  it("the reply's signal aborts a call without calling it a timeout", async () => {
    const clock: CallClock = { timedOut: false };
    const reply = new AbortController();
    const res = await boundedFetch(TIMEOUT_MS, reply.signal, clock)(`${base}/chunks?n=5&every=100`);
    reply.abort();
    await expect(res.text()).rejects.toThrow();
    await sleep(TIMEOUT_MS + 100);
    expect(clock.timedOut).toBe(false);
  });
});
