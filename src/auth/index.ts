import { createRouter } from '../http/router';
import { finishHandler, initHandler, verifyHandler } from './auth.handlers';
import { finishLogin, initLogin, verifyWalletRoute } from './auth.routes';

export const auth = createRouter()
  .openapi(initLogin, initHandler)
  .openapi(finishLogin, finishHandler)
  .openapi(verifyWalletRoute, verifyHandler);
