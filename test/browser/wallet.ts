/**
 * An injected test wallet for the browser tests: a `window.ethereum` (EIP-1193) shim installed
 * before any page script runs, whose account and signatures come from a viem local account in
 * the test process (through page.exposeFunction). It answers eth_requestAccounts / eth_accounts,
 * eth_chainId and wallet_switchEthereumChain (a chain of its own, which a page may ask it to
 * switch, or which it refuses to leave with EIP-1193's 4001), and personal_sign; anything else
 * is 4200 (unsupported).
 */
import type { Page } from 'playwright-core';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

export interface TestWalletOptions {
  /** The chain the wallet starts on (default 1: a page must ask it to switch). */
  chainId?: number;
  /** Refuse wallet_switchEthereumChain as a user would (4001). */
  refuseSwitch?: boolean;
}

export async function installTestWallet(page: Page, account: PrivateKeyAccount, options: TestWalletOptions = {}): Promise<void> {
  await page.exposeFunction('__testWalletSign', (message: Hex) => account.signMessage({ message: { raw: message } }));
  await page.addInitScript(
    ({ address, chainId, refuseSwitch }: { address: string; chainId: number; refuseSwitch: boolean }) => {
      const sign = (globalThis as unknown as { __testWalletSign: (m: string) => Promise<string> }).__testWalletSign;
      let chain = chainId;
      const failure = (code: number, message: string) => Object.assign(new Error(message), { code });
      (globalThis as unknown as { ethereum: unknown }).ethereum = {
        isTestWallet: true,
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address.toLowerCase()];
          if (method === 'eth_chainId') return `0x${chain.toString(16)}`;
          if (method === 'wallet_switchEthereumChain') {
            if (refuseSwitch) throw failure(4001, 'User rejected the request.');
            chain = Number((params?.[0] as { chainId?: string } | undefined)?.chainId);
            return null;
          }
          if (method === 'personal_sign') return sign(String(params?.[0]));
          throw failure(4200, `unsupported ${method}`);
        },
      };
    },
    { address: account.address, chainId: options.chainId ?? 1, refuseSwitch: options.refuseSwitch ?? false },
  );
}
