import { createRouter } from '../http/router';
import { getAgentCardHandler } from './card.handlers';
import * as routes from './card.routes';

/** The agent's public A2A Agent Card (docs/tools.md, Call the agent from another agent). */
export const agentCard = createRouter().openapi(routes.getAgentCard, getAgentCardHandler);
