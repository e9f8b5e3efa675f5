/**
 * Operator script: the registry of NFT collections whose tokens are agents, per deployment.
 *
 *   npm run collections -- list   [--chain 80002]
 *   npm run collections -- add    --chain 80002 --address 0x... --kind internal
 *   npm run collections -- remove --chain 80002 --address 0x...
 *
 * The database comes from DATABASE_URL, or from .dev/stack.json when the local stack runs.
 * Kinds: `internal` and `expert` collections may hold contexts; any other kind (lower-case word)
 * is allowed for agents that only use the other routes.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { getAddress } from 'viem';
import { listCollections, registerCollection } from './lib/collections';
import { operatorDatabaseUrl } from './lib/database-url';

const CHAINS = [137, 80002];

function chainOption(value: string | undefined, required: boolean): number | undefined {
  if (value === undefined) {
    if (required) throw new Error('--chain is required (137 or 80002)');
    return undefined;
  }
  const chain = Number(value);
  if (!CHAINS.includes(chain)) throw new Error(`--chain must be one of ${CHAINS.join(', ')}`);
  return chain;
}

function addressOption(value: string | undefined): string {
  if (!value) throw new Error('--address is required');
  try {
    return getAddress(value);
  } catch {
    throw new Error(`--address ${value} is not a valid address (0x + 40 hex, EIP-55 when mixed case)`);
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { chain: { type: 'string' }, address: { type: 'string' }, kind: { type: 'string' } },
  });
  const command = positionals[0];
  const url = operatorDatabaseUrl();
  switch (command) {
    case 'list': {
      const rows = await listCollections(url, chainOption(values.chain, false));
      if (rows.length === 0) console.log('no collections registered');
      for (const row of rows) console.log(`${row.chainId}\t${row.address}\t${row.kind}`);
      return;
    }
    case 'add': {
      const kind = values.kind ?? '';
      if (!/^[a-z][a-z0-9_-]{0,31}$/.test(kind)) throw new Error('--kind must be a lower-case word such as internal or expert');
      const entry = { chainId: chainOption(values.chain, true)!, address: addressOption(values.address), kind };
      await registerCollection(url, entry);
      console.log(`registered ${entry.address} on chain ${entry.chainId} as ${entry.kind}`);
      return;
    }
    case 'remove': {
      const chainId = chainOption(values.chain, true)!;
      const address = addressOption(values.address);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rowCount } = await client.query('delete from "gateway"."collections" where chain_id = $1 and address = $2', [
          chainId,
          address.toLowerCase(),
        ]);
        console.log(rowCount ? `removed ${address} from chain ${chainId}` : `${address} was not registered on chain ${chainId}`);
      } finally {
        await client.end();
      }
      return;
    }
    default:
      throw new Error('usage: npm run collections -- list|add|remove [--chain 137|80002] [--address 0x...] [--kind internal]');
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
