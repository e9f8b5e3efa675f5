import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createGatewayClient } from '../../src/client';
import { mintFreshAgent, newWallet } from './chain';
import { cliEnv, runCli, tempDir } from './cli';
import type { DeploymentInfo } from './stack-info';

export interface CliAgent {
  /** The CLI's home: its token file lives here. */
  dir: string;
  remove: () => Promise<void>;
  tokenId: bigint;
  /** The typed client on the agent, with the token the CLI's login stored. */
  agent: ReturnType<ReturnType<typeof createGatewayClient>['agent']>;
  /** The CLI's environment for the agent: its home, the gateway, the agent. */
  env: NodeJS.ProcessEnv;
}

/** A fresh wallet logged in with `agent-gateway login`, owning a freshly minted agent on `net`. */
export async function cliAgent(net: DeploymentInfo): Promise<CliAgent> {
  const { dir, remove } = await tempDir();
  const owner = newWallet();
  const tokenFile = path.join(dir, 'token.json');
  const base = { HOME: dir, AGENT_GATEWAY_URL: net.baseUrl, AGENT_GATEWAY_TOKEN_FILE: tokenFile };
  const login = await runCli(['login'], cliEnv({ ...base, AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey }));
  if (login.code !== 0) throw new Error(`login failed:\n${login.output}`);
  const stored = JSON.parse(await readFile(tokenFile, 'utf8')) as { logins: Record<string, { token: string }> };
  const token = stored.logins[net.baseUrl]!.token;
  const tokenId = await mintFreshAgent(net, owner.address);
  const agent = createGatewayClient({ baseUrl: net.baseUrl, token }).agent(net.collection, tokenId);
  const env = cliEnv({ ...base, AGENT_COLLECTION: net.collection, AGENT_TOKEN_ID: tokenId.toString() });
  return { dir, remove, tokenId, agent, env };
}
