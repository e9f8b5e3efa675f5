/**
 * Decryption of Ethereum V3 keystore files (Web3 Secret Storage, as written by geth, ethers,
 * MetaMask exports, `cast wallet`): scrypt or pbkdf2-hmac-sha256 key derivation, aes-128-ctr,
 * and the MAC check keccak256(derivedKey[16..32] ++ ciphertext), with node:crypto and viem's
 * keccak256. Never puts the password or the key into an error message.
 */
import { createDecipheriv, pbkdf2Sync, scryptSync, timingSafeEqual } from 'node:crypto';
import { keccak256, type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';

export class KeystoreError extends Error {
  override readonly name = 'KeystoreError';
}

interface ScryptParams {
  n: number;
  r: number;
  p: number;
  dklen: number;
  salt: string;
}

interface Pbkdf2Params {
  c: number;
  dklen: number;
  prf: string;
  salt: string;
}

/** The largest scrypt work accepted: 128 * n * r bytes of memory, up to 1 GiB. */
const MAX_SCRYPT_MEMORY = 1024 * 1024 * 1024;
const MAX_PBKDF2_ROUNDS = 10_000_000;

function hexBytes(value: unknown, what: string, length?: number): Buffer {
  if (typeof value !== 'string') throw new KeystoreError(`keystore: ${what} is missing`);
  const hex = value.startsWith('0x') ? value.slice(2) : value;
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex) || hex.length === 0) throw new KeystoreError(`keystore: ${what} is not hex`);
  const bytes = Buffer.from(hex, 'hex');
  if (length !== undefined && bytes.length !== length) throw new KeystoreError(`keystore: ${what} must be ${length} bytes`);
  return bytes;
}

function positiveInteger(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new KeystoreError(`keystore: ${what} must be a positive integer`);
  return value;
}

function deriveKey(kdf: unknown, params: unknown, password: string): Buffer {
  if (typeof params !== 'object' || params === null) throw new KeystoreError('keystore: kdfparams is missing');
  const passwordBytes = Buffer.from(password, 'utf8');
  if (kdf === 'scrypt') {
    const p = params as Partial<ScryptParams>;
    const n = positiveInteger(p.n, 'kdfparams.n');
    const r = positiveInteger(p.r, 'kdfparams.r');
    const par = positiveInteger(p.p, 'kdfparams.p');
    const dklen = positiveInteger(p.dklen, 'kdfparams.dklen');
    if ((n & (n - 1)) !== 0 || n < 2) throw new KeystoreError('keystore: kdfparams.n must be a power of two');
    if (dklen < 32) throw new KeystoreError('keystore: kdfparams.dklen must be at least 32');
    const memory = 128 * n * r;
    if (memory > MAX_SCRYPT_MEMORY) throw new KeystoreError('keystore: scrypt parameters need more than 1 GiB of memory');
    // RFC 7914 (and OpenSSL behind node:crypto) requires N < 2^(128 * r / 8); geth, ethers and
    // MetaMask write r = 8, so this only refuses unusual files.
    if (16 * r < 31 && n >= 2 ** (16 * r))
      throw new KeystoreError(`keystore: scrypt with n=${n} and r=${r} is not supported (n must be below 2^(16·r))`);
    const salt = hexBytes(p.salt, 'kdfparams.salt');
    try {
      return scryptSync(passwordBytes, salt, dklen, { N: n, r, p: par, maxmem: 2 * memory + 16 * 1024 * 1024 });
    } catch (err) {
      throw new KeystoreError(`keystore: scrypt parameters were refused (${err instanceof Error ? err.message : 'error'})`);
    }
  }
  if (kdf === 'pbkdf2') {
    const p = params as Partial<Pbkdf2Params>;
    const c = positiveInteger(p.c, 'kdfparams.c');
    const dklen = positiveInteger(p.dklen, 'kdfparams.dklen');
    if (p.prf !== 'hmac-sha256') throw new KeystoreError(`keystore: unsupported pbkdf2 prf ${JSON.stringify(p.prf)} (only hmac-sha256)`);
    if (dklen < 32) throw new KeystoreError('keystore: kdfparams.dklen must be at least 32');
    if (c > MAX_PBKDF2_ROUNDS) throw new KeystoreError('keystore: pbkdf2 round count is unreasonably high');
    return pbkdf2Sync(passwordBytes, hexBytes(p.salt, 'kdfparams.salt'), c, dklen, 'sha256');
  }
  throw new KeystoreError(`keystore: unsupported kdf ${JSON.stringify(kdf)} (scrypt or pbkdf2)`);
}

export interface DecryptedKeystore {
  privateKey: Hex;
  address: Hex;
}

/**
 * Decrypts a V3 keystore (the parsed JSON or its text). Throws KeystoreError for a malformed
 * file, an unsupported cipher or kdf, a wrong password (MAC mismatch) or an address that does
 * not match the decrypted key.
 */
export function decryptKeystore(keystore: unknown, password: string): DecryptedKeystore {
  let json = keystore;
  if (typeof json === 'string') {
    try {
      json = JSON.parse(json);
    } catch {
      throw new KeystoreError('keystore: the file is not JSON');
    }
  }
  if (typeof json !== 'object' || json === null) throw new KeystoreError('keystore: the file is not a JSON object');
  const file = json as { version?: unknown; address?: unknown; crypto?: unknown; Crypto?: unknown };
  if (file.version !== 3) throw new KeystoreError(`keystore: version ${JSON.stringify(file.version)} is not supported (only 3)`);
  const crypto = (file.crypto ?? file.Crypto) as
    | { cipher?: unknown; cipherparams?: { iv?: unknown }; ciphertext?: unknown; kdf?: unknown; kdfparams?: unknown; mac?: unknown }
    | undefined;
  if (typeof crypto !== 'object' || crypto === null) throw new KeystoreError('keystore: the "crypto" section is missing');
  if (crypto.cipher !== 'aes-128-ctr')
    throw new KeystoreError(`keystore: unsupported cipher ${JSON.stringify(crypto.cipher)} (only aes-128-ctr)`);
  const iv = hexBytes(crypto.cipherparams?.iv, 'cipherparams.iv', 16);
  const ciphertext = hexBytes(crypto.ciphertext, 'ciphertext');
  const mac = hexBytes(crypto.mac, 'mac', 32);

  const derived = deriveKey(crypto.kdf, crypto.kdfparams, password);
  const expected = Buffer.from(keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2), 'hex');
  if (!timingSafeEqual(expected, mac)) throw new KeystoreError('keystore: wrong password (the MAC does not match)');

  const decipher = createDecipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const plain = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  if (plain.length !== 32) throw new KeystoreError('keystore: the decrypted key is not 32 bytes');
  const privateKey = `0x${plain.toString('hex')}` as Hex;
  plain.fill(0);
  derived.fill(0);
  let address: Hex;
  try {
    address = privateKeyToAddress(privateKey);
  } catch {
    throw new KeystoreError('keystore: the decrypted key is not a valid secp256k1 private key');
  }
  if (typeof file.address === 'string' && file.address !== '') {
    const stated = file.address.toLowerCase().replace(/^0x/, '');
    if (stated !== address.toLowerCase().slice(2)) throw new KeystoreError("keystore: the file's address does not match its key");
  }
  return { privateKey, address };
}
