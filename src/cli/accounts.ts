/** Wallet accounts for login and `pay ask`: a private key from the environment, or a V3 keystore file. */
import { readFile } from 'node:fs/promises';
import type { PrivateKeyAccount } from 'viem/accounts';
import { CliError, registerSecret } from './output';
import { promptHidden } from './prompt';

/**
 * A viem account for a private key given as 0x + 64 hex (or bare 64 hex): it signs logins and
 * x402 payments (typed data). Never echoes the key.
 */
export async function accountFromPrivateKey(raw: string): Promise<PrivateKeyAccount> {
  const trimmed = raw.trim();
  registerSecret(raw);
  registerSecret(trimmed);
  const hex = (/^0x/i.test(trimmed) ? `0x${trimmed.slice(2)}` : `0x${trimmed}`) as `0x${string}`;
  registerSecret(hex);
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex))
    throw new CliError('AGENT_GATEWAY_PRIVATE_KEY is not a private key (expected 0x followed by 64 hex digits)');
  const { privateKeyToAccount } = await import('viem/accounts');
  try {
    return privateKeyToAccount(hex);
  } catch {
    throw new CliError('AGENT_GATEWAY_PRIVATE_KEY is not a valid secp256k1 private key');
  }
}

export async function accountFromKeystore(file: string, env: NodeJS.ProcessEnv): Promise<PrivateKeyAccount> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read the keystore ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let password = env.AGENT_GATEWAY_KEYSTORE_PASSWORD;
  if (password === undefined) {
    if (!process.stdin.isTTY) {
      throw new CliError('the keystore needs a password: set AGENT_GATEWAY_KEYSTORE_PASSWORD, or run on a terminal to be prompted');
    }
    password = await promptHidden(`password for ${file}: `);
  }
  registerSecret(password);
  const { decryptKeystore, KeystoreError } = await import('./keystore');
  try {
    const { privateKey } = decryptKeystore(text, password);
    registerSecret(privateKey);
    const { privateKeyToAccount } = await import('viem/accounts');
    return privateKeyToAccount(privateKey);
  } catch (err) {
    if (err instanceof KeystoreError) throw new CliError(`${err.message} (${file})`);
    throw err;
  }
}
