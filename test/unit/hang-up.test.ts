/** A client's hang-up for one reply (src/replies/hang-up.ts): it aborts the reply and ends the wait. */
import { describe, expect, it } from 'vitest';
import { onHangUp } from '../../src/replies/hang-up';

describe('onHangUp', () => {
  it('aborts the reply and rejects with the reason when the client hangs up', async () => {
    const client = new AbortController();
    const reply = new AbortController();
    const hangUp = onHangUp(client.signal, reply);
    const reason = new DOMException('The client has disconnected', 'AbortError');
    client.abort(reason);
    await expect(hangUp.promise).rejects.toBe(reason);
    expect(reply.signal.reason).toBe(reason);
  });

  it('a client already gone ends the reply at once', async () => {
    const reply = new AbortController();
    const hangUp = onHangUp(AbortSignal.abort('gone'), reply);
    await expect(hangUp.promise).rejects.toBe('gone');
    expect(reply.signal.aborted).toBe(true);
  });

  it('after dispose (the reply ended) a hang-up changes nothing; without a signal it never settles', async () => {
    const client = new AbortController();
    const reply = new AbortController();
    onHangUp(client.signal, reply).dispose();
    client.abort();
    expect(reply.signal.aborted).toBe(false);
    const none = onHangUp(undefined, reply);
    const settled = await Promise.race([
      none.promise.then(
        () => 'settled',
        () => 'settled',
      ),
      new Promise((r) => setTimeout(() => r('pending'), 20)),
    ]);
    expect(settled).toBe('pending');
  });
});
