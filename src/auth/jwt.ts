import { errors, jwtVerify, SignJWT } from 'jose';
import { getAddress, isAddress, type Address } from 'viem';

/** Clock skew accepted on `exp`, `nbf` and `iat`, in seconds. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export interface AccessClaims {
  /** The wallet that signed the login message, EIP-55. */
  sub: Address;
  /** The chain the token is bound to. */
  cId: number;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
}

/** Issues an HS256 access token bound to one wallet and one chain. */
export async function issueAccessToken(input: {
  secret: Uint8Array;
  wallet: Address;
  chainId: number;
  lifetimeSeconds: number;
  now: Date;
}): Promise<{ token: string; claims: AccessClaims }> {
  const iat = Math.floor(input.now.getTime() / 1000);
  const claims: AccessClaims = {
    sub: input.wallet,
    cId: input.chainId,
    iat,
    nbf: iat,
    exp: iat + input.lifetimeSeconds,
    jti: crypto.randomUUID(),
  };
  const token = await new SignJWT({ cId: claims.cId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt(claims.iat)
    .setNotBefore(claims.nbf)
    .setExpirationTime(claims.exp)
    .setJti(claims.jti)
    .sign(input.secret);
  return { token, claims };
}

export type TokenFailure = 'invalid' | 'expired' | 'wrong_chain';

const verificationKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

/** The HS256 key, imported once per secret and isolate (jose would import the raw bytes on every call). */
function verificationKey(secret: Uint8Array): Promise<CryptoKey> {
  let key = verificationKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    verificationKeys.set(secret, key);
  }
  return key;
}

/**
 * Verifies an access token: HS256 only (no `none`, no other algorithm), `exp`/`nbf`/`iat`/`sub`/`cId`
 * required, bounded clock skew, and `cId` equal to this deployment's chain.
 */
export async function verifyAccessToken(
  token: string,
  options: { secret: Uint8Array; chainId: number; now: Date },
): Promise<{ ok: true; claims: AccessClaims } | { ok: false; reason: TokenFailure }> {
  try {
    const { payload } = await jwtVerify(token, await verificationKey(options.secret), {
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'nbf', 'iat', 'sub', 'cId'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: options.now,
    });
    const { sub, cId, iat, nbf, exp, jti } = payload;
    if (typeof sub !== 'string' || !isAddress(sub, { strict: false })) return { ok: false, reason: 'invalid' };
    if (typeof cId !== 'number' || typeof iat !== 'number' || typeof nbf !== 'number' || typeof exp !== 'number') {
      return { ok: false, reason: 'invalid' };
    }
    if (iat > options.now.getTime() / 1000 + CLOCK_TOLERANCE_SECONDS) return { ok: false, reason: 'invalid' };
    if (cId !== options.chainId) return { ok: false, reason: 'wrong_chain' };
    return { ok: true, claims: { sub: getAddress(sub), cId, iat, nbf, exp, jti: typeof jti === 'string' ? jti : '' } };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'invalid' };
  }
}
