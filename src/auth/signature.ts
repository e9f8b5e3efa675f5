import {
  encodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  hashMessage,
  hexToBytes,
  isHex,
  recoverMessageAddress,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { isRevert } from '../chain/errors';

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

export interface SignedMessage {
  address: Address;
  message: string;
  signature: Hex;
}

/** True when `signature` is an ordinary (65-byte ECDSA) personal_sign of `address` over `message`. No RPC. */
export async function recoversTo(input: SignedMessage): Promise<boolean> {
  if (hexToBytes(input.signature).length !== 65) return false;
  try {
    const recovered = await recoverMessageAddress({ message: input.message, signature: input.signature });
    return recovered.toLowerCase() === input.address.toLowerCase();
  } catch {
    return false; // not a recoverable ECDSA signature: may still be a contract wallet's
  }
}

/**
 * Asks the chain whether `signature` is `address`'s over `message`: ERC-1271 (deployed wallets)
 * and ERC-6492 (counterfactual ones), through the deployless universal validator in one eth_call.
 * Only a revert or a false answer means "not valid". viem's `verifyMessage` also answers false
 * when the RPC cannot be reached; this one throws instead, so the caller answers 503 and consumes nothing.
 * @throws the transport's error when the chain could not be asked.
 */
export async function verifiedOnChain(chain: PublicClient, input: SignedMessage): Promise<boolean> {
  try {
    const { data } = await chain.call({
      data: encodeDeployData({
        abi: erc6492SignatureValidatorAbi,
        args: [input.address, hashMessage(input.message), input.signature],
        bytecode: erc6492SignatureValidatorByteCode,
      }),
    });
    return data !== undefined && /^0x0*1$/.test(data);
  } catch (err) {
    if (isRevert(err)) return false;
    throw err;
  }
}

/**
 * True when `signature` is `address`'s personal_sign over `message`. Recovers locally first (no
 * RPC for ordinary wallets); only when that does not match asks the chain.
 * @throws when the chain must be asked and cannot be reached.
 */
export async function verifyWalletSignature(input: SignedMessage & { chain: PublicClient }): Promise<boolean> {
  if (await recoversTo(input)) return true;
  return verifiedOnChain(input.chain, input);
}
