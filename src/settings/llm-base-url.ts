import { canonicalToolServerUrl } from '../tool-servers/url';
import type { OutboundOptions } from '../net/outbound-policy';
import { AppError } from '../errors';
import { LLM_PROVIDERS } from './llm-providers';

export { LLM_PROVIDERS };

/**
 * The canonical `baseUrl` of LLM settings, or null. It passes the one outbound policy, with the
 * rules of a tool-server URL (https, no userinfo, no IP literals or internal names; loopback only
 * on the local stack); `openai-compatible` needs one; checking it never contacts the provider.
 */
export function checkBaseUrl(input: { provider: string; baseUrl?: string | null }, outbound: OutboundOptions): string | null {
  if (input.baseUrl == null) {
    if (input.provider === 'openai-compatible') {
      throw new AppError('invalid_llm_base_url', 'provider openai-compatible needs a baseUrl (e.g. https://api.groq.com/openai/v1)', {
        details: { reason: 'empty' },
      });
    }
    return null;
  }
  const checked = canonicalToolServerUrl(input.baseUrl, outbound);
  if (!checked.ok) throw new AppError('invalid_llm_base_url', `baseUrl: ${checked.message}`, { details: { reason: checked.reason } });
  // The SDK appends `/chat/completions` etc.: no trailing slash.
  return checked.url.replace(/\/+$/, '');
}

/**
 * A stored `baseUrl` at use, against the policy in force (it passes when saved and when used):
 * one saved under the local stack's loopback switch, or under an older rule, is refused before
 * any model request, 409 `llm_base_url_refused`.
 */
export function checkStoredBaseUrl(baseUrl: string | null, outbound: OutboundOptions): void {
  if (baseUrl === null) return;
  const checked = canonicalToolServerUrl(baseUrl, outbound);
  if (!checked.ok) {
    throw new AppError(
      'llm_base_url_refused',
      `The stored LLM baseUrl is refused by the outbound policy in force (${checked.message}); nothing was sent: POST …/llm/settings with another baseUrl`,
      { details: { reason: checked.reason } },
    );
  }
}
