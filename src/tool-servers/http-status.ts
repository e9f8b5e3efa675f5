import { discard } from './rpc-response';
import { McpError } from './types';

/** Statuses that mean the same for every call: redirects, credential, upstream trouble. */
export async function checkStatus(res: Response): Promise<void> {
  const status = res.status;
  if ((res.type as string) === 'opaqueredirect' || (status >= 300 && status < 400)) {
    await discard(res);
    throw new McpError('redirect', `tool server answered with a redirect (HTTP ${status}); redirects are not followed`, {
      status,
    });
  }
  if (status === 401 && /\bresource_metadata\s*=/i.test(res.headers.get('www-authenticate') ?? '')) {
    await discard(res);
    throw new McpError('oauth_required', 'tool server requires OAuth authorization (HTTP 401 with a resource_metadata challenge)', {
      status,
    });
  }
  if (status === 401 || status === 403) {
    await discard(res);
    throw new McpError('unauthorized', `tool server rejected the credential (HTTP ${status})`, { status });
  }
  if (status === 424) {
    await discard(res);
    throw new McpError('upstream_dependency', 'tool server cannot reach its own backend (HTTP 424)', { status });
  }
  if (status >= 500) {
    await discard(res);
    throw new McpError('upstream_error', `tool server failed (HTTP ${status})`, { status });
  }
}
