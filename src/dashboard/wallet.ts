/**
 * The browser's wallet: an injected EIP-1193 provider (`window.ethereum`: MetaMask, Rabby,
 * Coinbase Wallet). Accounts, the chain check and switch, and a `LoginAccount` for the client's
 * SIWE `login()` that signs with `personal_sign`.
 */
import type { LoginAccount } from '../client';

interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** A wallet failure in words, with a code the page shows like a gateway error's. */
export class WalletError extends Error {
  override readonly name = 'WalletError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function provider(): Eip1193Provider {
  const injected = (globalThis as { ethereum?: Partial<Eip1193Provider> }).ethereum;
  if (!injected || typeof injected.request !== 'function') {
    throw new WalletError(
      'wallet_missing',
      'No browser wallet found: install or enable one (MetaMask, Rabby, Coinbase Wallet) and reload.',
    );
  }
  return injected as Eip1193Provider;
}

/** EIP-1193's user rejection (4001), or another provider error's code. */
function providerCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

function providerMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Asks the wallet for its accounts; the first one. */
export async function requestAccount(): Promise<string> {
  let accounts: unknown;
  try {
    accounts = await provider().request({ method: 'eth_requestAccounts' });
  } catch (err) {
    if (err instanceof WalletError) throw err;
    if (providerCode(err) === 4001) throw new WalletError('wallet_rejected', 'The wallet refused to connect.');
    throw new WalletError('wallet_error', `The wallet could not connect: ${providerMessage(err)}`);
  }
  const first = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof first !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(first)) throw new WalletError('wallet_error', 'The wallet gave no account.');
  return first;
}

/** Makes the wallet use `chainId`, asking it to switch when it is on another chain. */
export async function ensureChain(chainId: number): Promise<void> {
  const wallet = provider();
  const current = Number(await wallet.request({ method: 'eth_chainId' }));
  if (current === chainId) return;
  try {
    await wallet.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${chainId.toString(16)}` }] });
  } catch (err) {
    const code = providerCode(err);
    if (code === 4001) {
      throw new WalletError(
        'wrong_chain',
        `This deployment runs on chain ${chainId}; the wallet is on chain ${current} and refused to switch.`,
      );
    }
    if (code === 4902)
      throw new WalletError('wrong_chain', `The wallet does not know chain ${chainId}: add it to the wallet, then log in again.`);
    throw new WalletError('wrong_chain', `The wallet could not switch to chain ${chainId}: ${providerMessage(err)}`);
  }
  const after = Number(await wallet.request({ method: 'eth_chainId' }));
  if (after !== chainId)
    throw new WalletError('wrong_chain', `The wallet is still on chain ${after}; this deployment runs on chain ${chainId}.`);
}

const hex = (text: string) => `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;

/** The client's login account: SIWE's message signed with `personal_sign` (EIP-191). */
export function walletAccount(address: string): LoginAccount {
  return {
    address,
    async signMessage({ message }) {
      try {
        const signature = await provider().request({ method: 'personal_sign', params: [hex(message), address] });
        if (typeof signature !== 'string') throw new WalletError('wallet_error', 'The wallet gave no signature.');
        return signature;
      } catch (err) {
        if (err instanceof WalletError) throw err;
        if (providerCode(err) === 4001) throw new WalletError('wallet_rejected', 'The wallet refused to sign the login message.');
        throw new WalletError('wallet_error', `The wallet could not sign: ${providerMessage(err)}`);
      }
    },
  };
}
