/** `agent-gateway agents list`: the logged-in wallet's own agents in a collection. */
import type { Command } from './command';
import { UsageError } from './output';
import { gatewayFailure, type GlobalValues, openSession } from './session';

export const agentsListCommand: Command = {
  path: ['agents', 'list'],
  usage: 'agent-gateway agents list [--collection ADDR] [--json]',
  help: `Lists the token ids your wallet holds in a collection registered on the gateway's deployment,
one per line on stdout (ascending), read on-chain now. The collection must be ERC-721 Enumerable
for its holders to be listed; otherwise nothing is listed and stderr says so (name the agent with
--token-id then). At most 100 are listed; stderr says when there are more. The agents the wallet
may use as a delegate there (delegate.xyz) are named on stderr with their owners (--json has them).

Options:
  --json   print the answer { collection, owner, enumerable, tokens: [{ tokenId }], truncated,
           delegated: [{ tokenId, owner }], delegatedTruncated }

Needs the wallet's login (agent-gateway login; an agent key cannot list a wallet's agents) and the
collection (--collection or AGENT_COLLECTION).`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const collection = (values as GlobalValues).collection || env.AGENT_COLLECTION;
    if (!collection) throw new UsageError('which collection? pass --collection ADDRESS (or set AGENT_COLLECTION)');
    if (!/^0x[0-9a-fA-F]{40}$/.test(collection))
      throw new UsageError(`--collection must be 0x + 40 hex, got ${JSON.stringify(collection.slice(0, 60))}`);
    const session = await openSession(values as GlobalValues, env, io, { agentKey: false });
    try {
      const owned = await session.client.listOwnedTokens(collection);
      if (values.json === true) io.out(JSON.stringify(owned, null, 2));
      else for (const { tokenId } of owned.tokens) io.out(tokenId);
      if (!owned.enumerable) {
        io.err(`agents list: ${owned.collection} is not ERC-721 Enumerable: its holders cannot be listed; name the agent with --token-id`);
      } else {
        const more = owned.truncated ? ' (the first 100: the wallet holds more)' : '';
        io.err(`agents list: ${owned.tokens.length} agents of ${owned.collection} held by ${owned.owner}${more}`);
      }
      if (owned.delegated.length > 0 || owned.delegatedTruncated) {
        const named = owned.delegated.map((t) => `${t.tokenId} (of ${t.owner})`).join(', ');
        const more = owned.delegatedTruncated ? '; there are more than listed' : '';
        io.err(`agents list: as a delegate you may use ${owned.delegated.length}: ${named}${more}`);
      }
    } catch (err) {
      gatewayFailure(err, 'listing your agents');
    }
    return 0;
  },
};
