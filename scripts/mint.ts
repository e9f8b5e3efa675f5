/**
 * `npm run mint -- --to ADDRESS [--chain mainnet|testnet] [--token-id N] [--rentable]`: mints a demo
 * agent (with --rentable, of the rentable ERC-4907 collection) on the running local stack and
 * prints the environment lines the CLI needs (stdout), so
 * `eval "$(npm run -s mint -- --to 0x...)"` sets them. What it did goes to stderr.
 */
import { parseArgs } from 'node:util';
import { exportLine, MintError, mintDemoAgent, type ChainName } from './lib/mint';

const USAGE = 'usage: npm run mint -- --to ADDRESS [--chain mainnet|testnet] [--token-id N] [--rentable]';

async function run(): Promise<number> {
  let values: { to?: string; chain?: string; 'token-id'?: string; rentable?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        to: { type: 'string' },
        chain: { type: 'string' },
        'token-id': { type: 'string' },
        rentable: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    console.error(`npm run mint: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(
      `${USAGE}\n\nMints a demo agent (DemoAgents.mint, dev chains only) to ADDRESS on the running local stack\nwhose stack file is $DEV_DIR/stack.json (DEV_DIR defaults to .dev of this clone), signed by its funded dev account. Without\n--token-id it takes the smallest free id. --chain defaults to testnet (chain 80002).\n--rentable mints on the rentable collection (ERC-4907: its owner can lend it with setUser) instead.\nPrints the export line for the CLI on stdout: eval "$(npm run -s mint -- --to ADDRESS)".`,
    );
    return 0;
  }
  const chain = values.chain ?? 'testnet';
  if (values.to === undefined || (chain !== 'mainnet' && chain !== 'testnet')) {
    console.error(
      `npm run mint: ${values.to === undefined ? '--to ADDRESS is required' : `--chain ${chain}: use mainnet or testnet`}\n${USAGE}`,
    );
    return 2;
  }
  try {
    const request = { to: values.to, chain: chain as ChainName, tokenId: values['token-id'], rentable: values.rentable === true };
    const minted = await mintDemoAgent(request, process.env);
    console.error(
      `minted agent ${minted.tokenId} of collection ${minted.collection} on ${minted.chain} (chain ${minted.chainId}) to ${minted.owner}`,
    );
    console.log(exportLine(minted));
    return 0;
  } catch (err) {
    if (err instanceof MintError) {
      console.error(`npm run mint: ${err.message}`);
      return err.exitCode;
    }
    console.error(`npm run mint failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    return 1;
  }
}

process.exitCode = await run();
