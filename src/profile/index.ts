import { createRouter } from '../http/router';
import * as handlers from './profile.handlers';
import * as routes from './profile.routes';

/** The agent's public profile and its ERC-8004 registration file (docs/tools.md). */
export const profile = createRouter()
  .openapi(routes.getProfile, handlers.getProfileHandler)
  .openapi(routes.setProfile, handlers.setProfileHandler)
  .openapi(routes.getRegistration, handlers.getRegistrationHandler);
