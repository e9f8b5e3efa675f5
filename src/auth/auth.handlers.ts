import type { RouteHandler } from '@hono/zod-openapi';
import { limitLoginAttempts } from '../http/rate-limit';
import type { AppBindings } from '../types';
import type { finishLogin as finishRoute, initLogin as initRoute, verifyWalletRoute } from './auth.routes';
import { finishLogin, startLogin, verifyWallet } from './auth.service';
import { authDeps } from './request-deps';

export const initHandler: RouteHandler<typeof initRoute, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  await limitLoginAttempts(c, 'init', body);
  const result = await startLogin(authDeps(c, body), { wallet: body.walletAddress, chainId: body.chainId, purpose: body.purpose });
  c.header('Cache-Control', 'no-store');
  return c.json(result, 200);
};

export const finishHandler: RouteHandler<typeof finishRoute, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const result = await finishLogin(authDeps(c, body), {
    wallet: body.walletAddress,
    chainId: body.chainId,
    signature: body.signature,
    nonce: body.nonce,
  });
  c.header('Cache-Control', 'no-store');
  return c.json(result, 200);
};

export const verifyHandler: RouteHandler<typeof verifyWalletRoute, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const result = await verifyWallet(authDeps(c, body), {
    wallet: body.walletAddress,
    chainId: body.chainId,
    message: body.message,
    signature: body.signature,
  });
  c.header('Cache-Control', 'no-store');
  return c.json(result, 200);
};
