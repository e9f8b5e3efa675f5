/**
 * Each provider package is imported by the reply that first needs it (src/replies/engine.ts and
 * model.ts, issue 24): in the bundled worker the import resolves and the provider speaks its own
 * protocol. The stand-in (an OpenAI Chat Completions server) answers the other protocols' paths
 * with 404 and a wrong credential header with 401, so each provider's request is seen there and
 * its failure arrives mapped (never 500). test/unit/lazy-providers.test.ts checks that none of
 * them is reached at start-up.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { expectError } from '../support/http';
import { replyAgent, replyWorker } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
});

const seen = (path: string) => llm.requests.filter((r) => r.path === path);

describe('providers loaded on a reply', () => {
  it('openai: its Responses request reaches the provider; the 404 is 502 llm_unavailable', async () => {
    const who = await replyAgent(worker.deployment, API_KEY, { provider: 'openai', model: 'gpt-stand-in' });
    const before = seen('/v1/responses').length;
    const res = await who.reply({ message: 'hello openai' });
    expectError(res, 502, 'llm_unavailable');
    expect(res.body.error.details).toEqual({ upstreamStatus: 404 });
    expect(seen('/v1/responses').length).toBe(before + 1);
  });

  it("anthropic: its Messages request reaches the provider with its own key header; the stand-in's 401 is 424", async () => {
    const who = await replyAgent(worker.deployment, API_KEY, { provider: 'anthropic', model: 'claude-stand-in' });
    const before = seen('/v1/messages').length;
    const res = await who.reply({ message: 'hello anthropic' });
    expectError(res, 424, 'llm_credential_rejected');
    const requests = seen('/v1/messages');
    expect(requests.length).toBe(before + 1);
    expect(requests.at(-1)?.headers['x-api-key']).toBe(API_KEY);
  });

  it('openai-compatible: the reply answers (the provider the other reply tests use)', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    const res = await who.reply({ message: 'hello compatible' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.reply.message).toBe('stand-in model: you said: hello compatible');
  });

  it('workers-ai without the AI binding: 409 llm_provider_unavailable', async () => {
    const who = await replyAgent(worker.deployment, API_KEY, {
      provider: 'workers-ai',
      model: '@cf/meta/llama-stand-in',
      baseUrl: null,
      apiKey: null,
    });
    expectError(await who.reply({ message: 'hello workers ai' }), 409, 'llm_provider_unavailable');
  });
});
