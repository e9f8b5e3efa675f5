import { hexToBytes, isHex, recoverMessageAddress, type Address, type Hex, type PublicClient } from 'viem';

const ERC6492_MAGIC = '6492649264926492649264926492649264926492649264926492649264926492';
const MAX_SIGNATURE_BYTES = 16 * 1024;

/**
 * Accepted signature shapes: 65 bytes (an ordinary wallet, or a smart wallet with one owner),
 * a whole number of 65-byte signatures up to 16 (multi-owner ERC-1271 wallets), or an ERC-6492
 * wrapper for a wallet that is not deployed yet. Anything else is a wrong length.
 */
export function isAcceptedSignatureShape(signature: string): boolean {
  if (!isHex(signature, { strict: true }) || signature.length % 2 !== 0) return false;
  const bytes = (signature.length - 2) / 2;
  if (bytes === 0 || bytes > MAX_SIGNATURE_BYTES) return false;
  if (signature.toLowerCase().endsWith(ERC6492_MAGIC)) return true;
  return bytes % 65 === 0 && bytes / 65 <= 16;
}

/**
 * True when `signature` is `address`'s personal_sign over `message`. Recovers locally first (no
 * RPC for ordinary wallets); only when that does not match asks the chain, which covers ERC-1271
 * (deployed) and ERC-6492 (counterfactual) smart-contract wallets.
 * @throws when the chain must be asked and cannot be reached.
 */
export async function verifyWalletSignature(input: {
  address: Address;
  message: string;
  signature: Hex;
  chain: PublicClient;
}): Promise<boolean> {
  if (hexToBytes(input.signature).length === 65) {
    try {
      const recovered = await recoverMessageAddress({ message: input.message, signature: input.signature });
      if (recovered.toLowerCase() === input.address.toLowerCase()) return true;
    } catch {
      // not a recoverable ECDSA signature: may still be a contract wallet's
    }
  }
  return input.chain.verifyMessage({ address: input.address, message: input.message, signature: input.signature });
}
