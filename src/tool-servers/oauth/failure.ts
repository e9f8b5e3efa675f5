import { AppError } from '../../errors';
import type { FetchFailure } from './fetch-json';

/** The steps of the flow, as a failure names them. */
export type OAuthStep =
  | 'protected_resource_metadata'
  | 'authorization_server_metadata'
  | 'registration'
  | 'token'
  | 'refresh'
  | 'tool_server';

const STEP_WORDS: Record<OAuthStep, string> = {
  protected_resource_metadata: "the tool server's protected resource metadata",
  authorization_server_metadata: "the tool server's authorization server metadata",
  registration: "the authorization server's client registration",
  token: "the authorization server's token endpoint",
  refresh: "the authorization server's token endpoint (refreshing the access token)",
  tool_server: 'the tool server',
};

/** 502 `tool_server_oauth_failed`: a step of the flow failed; in words, with the step and the reason. */
export function oauthFailed(step: OAuthStep, reason: FetchFailure | string, message: string, status?: number): AppError {
  return new AppError('tool_server_oauth_failed', `OAuth with the tool server failed at ${STEP_WORDS[step]}: ${message}`, {
    details: { step, reason, ...(status === undefined ? {} : { upstreamStatus: status }) },
  });
}
