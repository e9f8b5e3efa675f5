import { AppError } from '../errors';
import type { McpError } from './client';

/**
 * Maps a tool server's failure to our public error. Never 401: our callers would read it as an
 * expired token. The upstream HTTP status, when there was one, goes in the details.
 */
export function toolServerError(err: McpError, phase: 'register' | 'use'): AppError {
  const details = { reason: err.kind, ...(err.status !== undefined ? { upstreamStatus: err.status } : {}) };
  const safe = err.message;
  switch (err.kind) {
    case 'invalid_schema':
      return new AppError('invalid_tool_schema', `Invalid tool schema${err.tool ? `: tool ${err.tool}` : ''}`, {
        details: { ...details, tool: err.tool, problem: safe },
      });
    case 'unauthorized':
      return phase === 'register'
        ? new AppError('tool_server_credential_rejected', `The tool server rejected the credential (HTTP ${err.status ?? 401})`, {
            details,
          })
        : new AppError('tool_server_failed_dependency', `The tool server rejected the stored credential (HTTP ${err.status ?? 401})`, {
            details,
          });
    case 'oauth_required':
      return phase === 'register'
        ? new AppError(
            'tool_server_oauth_unsupported',
            'The tool server requires OAuth authorization; OAuth tool servers are not supported: use a server that accepts a bearer token or an API-key header',
            { details },
          )
        : new AppError('tool_server_failed_dependency', 'The tool server now requires OAuth authorization, which is not supported', {
            details,
          });
    case 'upstream_dependency':
      return new AppError('tool_server_failed_dependency', 'The tool server cannot reach its own backend (HTTP 424)', { details });
    case 'unreachable':
      return new AppError('tool_server_unreachable', 'The tool server could not be reached', { details });
    case 'timeout':
      return phase === 'register'
        ? new AppError('tool_server_unreachable', 'The tool server did not answer in time', { details })
        : new AppError('tool_server_timeout', 'The tool server did not answer in time', { details });
    case 'upstream_error':
      return phase === 'register'
        ? new AppError('tool_server_unreachable', `The tool server failed (HTTP ${err.status ?? 500})`, { details })
        : new AppError('tool_server_error', `The tool server failed (HTTP ${err.status ?? 500})`, { details });
    case 'bad_status':
    case 'redirect':
    case 'too_large':
    case 'bad_response':
    case 'bad_id':
    case 'rpc_error':
      return phase === 'register'
        ? new AppError('tool_server_invalid', `The tool server does not meet the contract: ${safe}`, { details })
        : new AppError('tool_server_error', `The tool server gave an unusable answer: ${safe}`, { details });
    default: {
      const unhandled: never = err.kind;
      return new AppError('tool_server_error', String(unhandled), { details });
    }
  }
}
