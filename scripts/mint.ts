/**
 * `npm run mint -- --to ADDRESS [--chain mainnet|testnet] [--token-id N]`: mints a demo agent on
 * the running local stack and prints the environment lines the CLI needs (stdout), so
 * `eval "$(npm run -s mint -- --to 0x...)"` sets them. What it did goes to stderr.
 */
import { parseArgs } from 'node:util';
import { exportLine, MintError, mintDemoAgent, type ChainName } from './lib/mint';

const USAGE = 'usage: npm run mint -- --to ADDRESS [--chain mainnet|testnet] [--token-id N]';

async function run(): Promise<number> {
  let values: { to?: string; chain?: string; 'token-id'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: { to: { type: 'string' }, chain: { type: 'string' }, 'token-id': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (err) {
    console.error(`npm run mint: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(
      `${USAGE}\n\nMints a demo agent (DemoAgents.mint, dev chains only) to ADDRESS on the running local stack\nwhose stack file is $DEV_DIR/stack.json (DEV_DIR defaults to .dev of this clone), signed by its funded dev account. Without\n--token-id it takes the smallest free id. --chain defaults to testnet (chain 80002).\nPrints the export line for the CLI on stdout: eval "$(npm run -s mint -- --to ADDRESS)".`,
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
    const minted = await mintDemoAgent({ to: values.to, chain: chain as ChainName, tokenId: values['token-id'] }, process.env);
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
