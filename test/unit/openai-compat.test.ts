/**
 * The chat-completions route's pure parts (src/openai-compat): which message is read, its text,
 * the request schema's refusals, and the reply's answer in OpenAI's shapes.
 */
import { describe, expect, it } from 'vitest';
import { chatCompletion, chunk, completionHeader, usageChunk } from '../../src/openai-compat/completion';
import { defaultConversation } from '../../src/openai-compat/conversation.service';
import { ChatCompletionRequestSchema, lastUserIndex, messageText } from '../../src/openai-compat/schemas';

const answer = {
  reply: { id: 7, role: 'assistant' as const, message: 'hello back', createdAt: '2026-11-25T00:00:00.000Z' },
  steps: [],
  usage: { inputTokens: 30, outputTokens: 12 },
  finishReason: 'stop' as const,
};

describe('the request', () => {
  it('reads the last user message, its text from a string or from text parts', () => {
    const messages = [
      { role: 'user', content: 'first' },
      { role: 'user', content: [{ type: 'text', text: 'line one' }, { type: 'image_url' }, { type: 'text', text: 'line two' }] },
      { role: 'assistant', content: 'an answer after it' },
    ];
    expect(lastUserIndex(messages)).toBe(1);
    expect(messageText(messages[1]?.content as never)).toBe('line one\nline two');
    expect(messageText(null)).toBe('');
    expect(lastUserIndex([{ role: 'system' }])).toBe(-1);
  });

  it('allows unknown fields; refuses no user message, a short one, a user that is not a context key', () => {
    const ok = ChatCompletionRequestSchema.safeParse({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'hi there', name: 'ada' }],
      temperature: 0.2,
      tools: [],
      n: 1,
    });
    expect(ok.success).toBe(true);
    const issues = (body: unknown) => {
      const parsed = ChatCompletionRequestSchema.safeParse(body);
      return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'));
    };
    expect(issues({ messages: [{ role: 'system', content: 'be brief' }] })).toEqual(['messages']);
    expect(
      issues({
        messages: [
          { role: 'user', content: 'ok' },
          { role: 'user', content: 'x' },
        ],
      }),
    ).toEqual(['messages.1.content']);
    expect(issues({ messages: [{ role: 'user', content: 'with\u0000nul' }] })).toEqual(['messages.0.content']);
    expect(issues({ messages: [{ role: 'user', content: 'hello' }], user: 'conversation-context-discovery/x' })).toEqual(['user']);
    expect(issues({ messages: [] })).toContain('messages');
  });

  it('names the default conversation after the key, or the wallet', () => {
    expect(defaultConversation({ keyId: 'k-1' })).toBe('openai/k-1');
    expect(defaultConversation({ wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' })).toBe(
      'openai/0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    );
  });
});

describe('the answer', () => {
  const header = completionHeader('req-1', 'gpt-4.1-mini', 1_764_100_000_999);

  it('is a chat.completion with the stored reply, the finish reason and the usage', () => {
    expect(header).toEqual({ id: 'chatcmpl-req-1', created: 1_764_100_000, model: 'gpt-4.1-mini' });
    expect(chatCompletion(header, answer)).toEqual({
      ...header,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello back', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 },
    });
  });

  it('says length for a reply stopped at its model-call bound, and null content when the model said nothing', () => {
    const stopped = chatCompletion(header, { ...answer, reply: null, finishReason: 'max_iterations' });
    expect(stopped.choices[0]).toMatchObject({ message: { content: null }, finish_reason: 'length' });
    expect(chunk(header, {}, 'max_iterations').choices[0]?.finish_reason).toBe('length');
    expect(chunk(header, { content: 'a' }).choices[0]).toEqual({ index: 0, delta: { content: 'a' }, finish_reason: null, logprobs: null });
    expect(usageChunk(header, answer.usage)).toMatchObject({ choices: [], usage: { total_tokens: 42 } });
  });
});
