/**
 * Hydration through the gateway with and without memory search's indexing (the goal:
 * >= 0.9x), in one run: a private stack as the integration tests start it (Postgres, anvil,
 * the worker bundled and run in workerd through Miniflare), two fresh agents, then the same
 * messages into both through the typed client in alternating rounds. In the agent "without", the
 * search index is dropped and the search columns default to an empty tsvector, so the indexer its
 * appends start (the same statement) finds nothing to do; in the agent "with", it fills what the
 * appends stored after their responses, on the same cores. Then how many messages the indexer
 * had not reached when the last append returned, and how long until it had.
 *
 *   node --import tsx scripts/bench/search/hydrate-gateway.ts [--messages 20000] [--parallel 8]
 */
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { createGatewayClient } from '../../../src/client';
import setup from '../../../test/support/global-setup';
import { mintFreshAgent, newWallet } from '../../../test/support/chain';
import type { StackInfo } from '../../../test/support/stack-info';
import { describeMachine, now, numberFlag, parseFlags, ratio, rejectUnknownFlags, runDate } from '../lib';
import { corpusMessages } from './corpus';

const flags = parseFlags();
rejectUnknownFlags(flags, ['messages', 'parallel']);
const total = numberFlag(flags, 'messages', 20_000);
const parallel = numberFlag(flags, 'parallel', 8);
const BATCH = 100;
const startedAt = new Date();

let info: StackInfo | undefined;
const teardown = await setup({ provide: (_key: string, value: StackInfo) => (info = value) } as never);
try {
  const stack = info!;
  const deployment = stack.testnet;
  const owner = newWallet();
  const client = createGatewayClient({
    baseUrl: deployment.baseUrl,
    login: { account: privateKeyToAccount(owner.privateKey), chainId: deployment.chainId },
  });
  await client.login();
  const keys = Array.from({ length: parallel }, (_, i) => `customer:${i}/notes`);
  const agents = await Promise.all(
    ['without', 'with'].map(async (name) => {
      const tokenId = await mintFreshAgent(deployment, owner.address);
      const agent = client.agent(deployment.collection, tokenId);
      await agent.createContexts(keys);
      return { name, agent, tokenId, seconds: 0 };
    }),
  );
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const { rows } = await db.query<{ schema_name: string }>(
    'select schema_name from gateway.agent_storage where chain_id = $1 and token_id = $2',
    [deployment.chainId, agents[0]!.tokenId.toString()],
  );
  const bare = `"${rows[0]!.schema_name}"`;
  await db.query(`DROP INDEX ${bare}.messages_search`);
  await db.query(
    `ALTER TABLE ${bare}.messages ALTER COLUMN search_en SET DEFAULT ''::tsvector, ALTER COLUMN search_simple SET DEFAULT ''::tsvector`,
  );
  // One round: `parallel` batches of 100 at once (one per context) into one agent, then the other.
  const round = parallel * BATCH;
  for (let from = 0, r = 0; from < total; from += round, r++) {
    const order = r % 2 === 0 ? agents : [...agents].reverse();
    for (const side of order) {
      const t = now();
      await Promise.all(
        keys.map((key, k) =>
          side.agent.appendMessages(
            key,
            corpusMessages(23, from + k * BATCH, BATCH).map((message) => ({ role: 'user' as const, message })),
          ),
        ),
      );
      side.seconds += (now() - t) / 1000;
    }
  }
  const lastAppend = now();
  const schemaOf = async (tokenId: bigint) =>
    (
      await db.query<{ schema_name: string }>('select schema_name from gateway.agent_storage where chain_id = $1 and token_id = $2', [
        deployment.chainId,
        tokenId.toString(),
      ])
    ).rows[0]!.schema_name;
  const withSchema = await schemaOf(agents[1]!.tokenId);
  const unindexed = async () =>
    Number((await db.query<{ n: string }>(`select count(*) as n from "${withSchema}".messages where search_en is null`)).rows[0]!.n);
  const tailAtEnd = await unindexed();
  // No more appends: the indexer the last ones started goes on for up to 10 s; a search starts it again.
  while ((await unindexed()) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (now() - lastAppend > 10_000) await agents[1]!.agent.search({ query: 'invoice' });
  }
  const caughtUpAfter = (now() - lastAppend) / 1000;
  const counts = await Promise.all(
    agents.map(async (a) =>
      Number((await db.query<{ n: string }>(`select count(*) as n from "${await schemaOf(a.tokenId)}".messages`)).rows[0]!.n),
    ),
  );
  await db.end();
  const stored = Math.ceil(total / round) * round;
  const rates = agents.map((a) => stored / a.seconds);
  console.log(`Hydration through the gateway, run ${runDate(startedAt)}; ${describeMachine()}`);
  for (const [i, a] of agents.entries()) {
    console.log(
      `${a.name} search indexing: ${stored} messages in ${a.seconds.toFixed(1)} s, ${rates[i]!.toFixed(0)}/s (stored ${counts[i]})`,
    );
  }
  console.log(`with / without: ${ratio(rates[1]!, rates[0]!)}`);
  console.log(
    `with: ${tailAtEnd} messages not yet indexed when the last append returned; all indexed ${caughtUpAfter.toFixed(1)} s after it (searches start the indexer again once the appends' has stopped)`,
  );
} finally {
  await teardown();
}
