/**
 * What the login service needs from a request: shared by the login routes and the OAuth authorize
 * step (which proves a login with the same checks and the same attempt limit).
 */
import type { Context } from 'hono';
import { chainClient } from '../chain/client';
import { limitLoginAttempts } from '../http/rate-limit';
import type { AppBindings } from '../types';
import type { AuthDeps } from './auth.service';

/** The login service's dependencies from a request; `wallet` is whose attempts the costly checks count. */
export function authDeps(c: Context<AppBindings>, wallet: { walletAddress: string; chainId: number }): AuthDeps {
  let charged: Promise<void> | undefined;
  return {
    config: c.var.config,
    kv: c.env.NONCES,
    db: c.var.db,
    chain: chainClient(c.var.config),
    now: () => new Date(),
    // Once per request, however many costly steps it takes.
    chargeCostlyCheck: () => (charged ??= limitLoginAttempts(c, 'signature', wallet)),
  };
}
