/**
 * The LLM key is bound to the provider and `baseUrl` it was entered with, against
 * the real stack with the agent NFT transferred on anvil: a later owner who points the settings at
 * their own server without a key of their own drops the earlier owner's key, so when the agent
 * comes back neither the owner's reply nor their revived agent key sends anything there. And the
 * stored `baseUrl` passes the outbound policy in force when used, not only when saved.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg, type TestAgent } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg, sql } from '../support/pg';
import { LLM_BASE_URL, replyAgent, replyWorker, standinSettings } from '../support/replies';
import { secretValue } from '../support/secrets';

const stack = inject('stack');
const KEY_A = secretValue('llm-key-a');
/** The later owner's server, another host the gateway reaches as `https://<name>.tools.example`. */
const B_BASE_URL = 'https://llmb.tools.example/v1';
let llm: StandinLlm;
let llmB: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;
/** The same deployment as `npm run dev` runs it (DEV_LOOPBACK_TARGETS=1): loopback baseUrls save. */
let devWorker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  // B's server answers whatever it is sent (no key of its own): it must simply hear nothing.
  [llm, llmB] = await Promise.all([startStandinLlm({ apiKey: KEY_A }), startStandinLlm()]);
  [worker, devWorker] = await Promise.all([
    replyWorker(stack, llm, { llmb: llmB.origin }),
    replyWorker(stack, llm, {}, { DEV_LOOPBACK_TARGETS: '1' }),
  ]);
});

afterAll(async () => {
  await Promise.all([worker?.dispose(), devWorker?.dispose()]);
  await Promise.all([llm?.close(), llmB?.close(), closePg()]);
});

const settings = standinSettings();
const replyPath = `/context/${seg('chat')}/reply`;

const entriesOf = (agent: TestAgent) =>
  sql<{ owner_wallet: string }>(
    stack.databaseUrl,
    'select owner_wallet from gateway.vault_entries where chain_id = $1 and collection = $2 and token_id = $3',
    [agent.deployment.chainId, agent.collection.toLowerCase(), agent.tokenId.toString()],
  );

/** Every header value B's server was sent since request `from`, for the check that A's key never reached it. */
const headersSeenByB = (from: number) =>
  llmB.requests.slice(from).flatMap((r) => Object.values(r.headers).flatMap((v) => (v === undefined ? [] : [v].flat())));

describe('the LLM key and the provider and baseUrl it was entered with', () => {
  it("A -> B -> A: B's baseUrl without a key drops A's key; A's reply and A's revived agent key send nothing to B's server", async () => {
    const heardByB = llmB.requests.length;
    const agent = await replyAgent(worker.deployment, KEY_A);
    const bridge = await createKey(agent, ['reply']);
    const first = await agent.reply({ message: 'hello before the sale' });
    expect(first.status, first.text).toBe(200);

    const b = newWallet();
    await transferFreshAgent(agent.deployment, agent.owner, b.address, agent.tokenId);
    const tokenB = await login(agent.deployment, b);
    const asB = (rest: string, init: Parameters<typeof call>[2] = {}) =>
      call(agent.deployment.baseUrl, agentPath(agent.collection, agent.tokenId, rest), { token: tokenB, ...init });
    const pointed = await asB('/llm/settings', { method: 'POST', json: { ...settings, baseUrl: B_BASE_URL } });
    expect(pointed.status, pointed.text).toBe(200);
    expect(pointed.body).toMatchObject({ baseUrl: B_BASE_URL, apiKeySet: false, credential: 'reenter_required' });
    // A's key is destroyed, not merely hidden.
    expect(await entriesOf(agent)).toEqual([]);

    await transferFreshAgent(agent.deployment, b, agent.owner.address, agent.tokenId);
    const read = await agent.call('/llm/settings');
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ baseUrl: B_BASE_URL, apiKeySet: false, credential: 'reenter_required' });

    const sentToA = llm.completions().length;
    const refused = await agent.reply({ message: 'my secrets after the agent came back' });
    expectError(refused, 409, 'credential_reentry_required');
    expect(refused.body.error.message).toContain('apiKey');
    const byKey = await withKey(agent, bridge.key, replyPath, { method: 'POST', json: { message: 'a bridge after the agent came back' } });
    expectError(byKey, 409, 'credential_reentry_required');
    const streamed = await agent.reply({ message: 'streamed after the agent came back' }, { headers: { accept: 'text/event-stream' } });
    expectError(streamed, 409, 'credential_reentry_required');

    expect(headersSeenByB(heardByB).filter((v) => v.includes(KEY_A))).toEqual([]);
    expect(llmB.requests.slice(heardByB)).toEqual([]);
    expect(llm.completions().length).toBe(sentToA);
    // Refused before anything is stored: the messages are the first exchange only.
    const stored = await agent.call(`/context/${seg('chat')}/messages`);
    expect(stored.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);

    // A enters the key again, for the server it belongs to, and the agent answers again.
    const again = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, apiKey: KEY_A } });
    expect(again.body).toMatchObject({ apiKeySet: true, credential: 'set' });
    expect((await withKey(agent, bridge.key, replyPath, { method: 'POST', json: { message: 'back' } })).status).toBe(200);
    expect(llmB.requests.slice(heardByB)).toEqual([]);
  });

  it('a change of provider alone drops the key: the model hears nothing until a key is entered', async () => {
    const agent = await replyAgent(worker.deployment, KEY_A);
    const changed = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, provider: 'openai' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ provider: 'openai', baseUrl: LLM_BASE_URL, apiKeySet: false, credential: 'reenter_required' });
    expect(await entriesOf(agent)).toEqual([]);
    // Saving again without a key keeps it needed: the drop is not forgotten.
    const resaved = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, provider: 'openai', temperature: 0.5 } });
    expect(resaved.body).toMatchObject({ apiKeySet: false, credential: 'reenter_required' });
    const before = llm.requests.length;
    expectError(await agent.reply({ message: 'hello' }), 409, 'credential_reentry_required');
    expect(llm.requests.length).toBe(before);
    // Back to the provider it was entered for: the dropped key does not come back.
    const back = await agent.call('/llm/settings', { method: 'POST', json: settings });
    expect(back.body).toMatchObject({ apiKeySet: false, credential: 'reenter_required' });
    expectError(await agent.reply({ message: 'hello again' }), 409, 'credential_reentry_required');
    expect(llm.requests.length).toBe(before);
  });

  it('a save with the same provider and baseUrl and no apiKey keeps the key, which the next reply sends', async () => {
    const agent = await replyAgent(worker.deployment, KEY_A);
    const kept = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, model: 'stand-in-2', temperature: 0.7 } });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body).toMatchObject({ model: 'stand-in-2', apiKeySet: true, credential: 'set' });
    const marker = `kept ${crypto.randomUUID()}`;
    const res = await agent.reply({ message: marker });
    expect(res.status, res.text).toBe(200);
    const seen = llm.completions().find((r) => JSON.stringify(r.body.messages).includes(marker));
    expect(seen?.headers.authorization).toBe(`Bearer ${KEY_A}`);
  });

  it('a key stored before keys were bound (migration 0011 leaves it unbound) is never sent: reenter_required, 409', async () => {
    const agent = await replyAgent(worker.deployment, KEY_A);
    // As the migration leaves a key it cannot tell was kept under a changed baseUrl.
    await sql(
      stack.databaseUrl,
      'update gateway.llm_settings set api_key_provider = null, api_key_base_url = null where chain_id = $1 and collection = $2 and token_id = $3',
      [agent.deployment.chainId, agent.collection.toLowerCase(), agent.tokenId.toString()],
    );
    expect((await agent.call('/llm/settings')).body).toMatchObject({ apiKeySet: false, credential: 'reenter_required' });
    const before = llm.requests.length;
    expectError(await agent.reply({ message: 'hello' }), 409, 'credential_reentry_required');
    expect(llm.requests.length).toBe(before);
  });

  it("A -> B -> A keyless: B's own keyless settings on B's server never receive A's memory after the agent comes back", async () => {
    const heardByB = llmB.requests.length;
    // A chose no key (a server of A's that needs none).
    const agent = await replyAgent(worker.deployment, KEY_A, { apiKey: null });
    expect((await agent.call('/llm/settings')).body).toMatchObject({ credential: 'none' });

    const b = newWallet();
    await transferFreshAgent(agent.deployment, agent.owner, b.address, agent.tokenId);
    const tokenB = await login(agent.deployment, b);
    const asB = (rest: string, init: Parameters<typeof call>[2] = {}) =>
      call(agent.deployment.baseUrl, agentPath(agent.collection, agent.tokenId, rest), { token: tokenB, ...init });
    // A's choice of no key is A's: B's reply on A's settings is refused too.
    expectError(await asB(replyPath, { method: 'POST', json: { message: 'as B on A settings' } }), 409, 'credential_reentry_required');
    const pointed = await asB('/llm/settings', { method: 'POST', json: { ...settings, baseUrl: B_BASE_URL, apiKey: null } });
    expect(pointed.body).toMatchObject({ baseUrl: B_BASE_URL, credential: 'none' });
    const asBReply = await asB(replyPath, { method: 'POST', json: { message: 'B talks to B server' } });
    expect(asBReply.status, asBReply.text).toBe(200);
    const heardFromB = llmB.requests.length;

    await transferFreshAgent(agent.deployment, b, agent.owner.address, agent.tokenId);
    expect((await agent.call('/llm/settings')).body).toMatchObject({ baseUrl: B_BASE_URL, credential: 'reenter_required' });
    const refused = await agent.reply({ message: 'my secrets after the agent came back, keyless' });
    expectError(refused, 409, 'credential_reentry_required');
    expect(refused.body.error.details).toMatchObject({ reason: 'entered_by_earlier_owner' });
    expect(llmB.requests.length).toBe(heardFromB);
    expect(heardFromB).toBeGreaterThan(heardByB);
  });

  it('apiKey: null after a drop says no key is needed: the settings run without one', async () => {
    const agent = await replyAgent(worker.deployment, KEY_A);
    await agent.call('/llm/settings', { method: 'POST', json: { ...settings, baseUrl: B_BASE_URL } });
    const none = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, baseUrl: B_BASE_URL, apiKey: null } });
    expect(none.body).toMatchObject({ apiKeySet: false, credential: 'none' });
    const marker = `keyless ${crypto.randomUUID()}`;
    const res = await agent.reply({ message: marker });
    expect(res.status, res.text).toBe(200);
    const seen = llmB.completions().find((r) => JSON.stringify(r.body.messages).includes(marker));
    expect(seen).toBeDefined();
    expect(seen?.headers.authorization ?? '').not.toContain(KEY_A);
  });
});

describe('the stored baseUrl at use', () => {
  it('a loopback baseUrl saved under DEV_LOOPBACK_TARGETS=1 is refused by production policy: 409 llm_base_url_refused, the model hears nothing', async () => {
    const agent = await replyAgent(devWorker.deployment, KEY_A, { baseUrl: llm.baseUrl });
    const path = agentPath(agent.collection, agent.tokenId, replyPath);
    // The local stack's worker replies on it.
    const local = await call(devWorker.url, path, { method: 'POST', token: agent.token, json: { message: 'on the local stack' } });
    expect(local.status, local.text).toBe(200);

    const before = llm.requests.length;
    const refused = await call(worker.url, path, { method: 'POST', token: agent.token, json: { message: 'in production' } });
    expectError(refused, 409, 'llm_base_url_refused');
    expect(refused.body.error.details).toMatchObject({ reason: 'not_https' });
    const bridge = await createKey(agent, ['reply']);
    const byKey = await call(worker.url, path, { method: 'POST', token: bridge.key, json: { message: 'in production, by key' } });
    expectError(byKey, 409, 'llm_base_url_refused');
    expect(llm.requests.length).toBe(before);
    const stored = await agent.call(`/context/${seg('chat')}/messages`);
    expect(stored.body.messages.map((m: { message: string }) => m.message)).not.toContain('in production');
  });
});
