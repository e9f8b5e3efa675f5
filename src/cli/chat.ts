/** `agent-gateway chat --key KEY [--message TEXT]`: talk with the agent in a terminal, or once from a script. */
import { createInterface } from 'node:readline';
import { GatewayError } from '../client/errors';
import type { ReplyRequest } from '../client/types';
import { runTurn } from './chat-turn';
import { stringValue, type Command, type OptionValues } from './command';
import { describeGatewayError, UsageError } from './output';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

const VARIABLE = /^([A-Za-z0-9_.-]{1,64})=(.*)$/s;

/** The request's fixed part: template, variables, tools (the message is added per turn). */
export function replyRequestOf(values: OptionValues): Omit<ReplyRequest, 'message'> {
  const variables: Record<string, string> = {};
  const given = values.var;
  for (const entry of Array.isArray(given) ? given : []) {
    const match = typeof entry === 'string' ? VARIABLE.exec(entry) : null;
    if (!match)
      throw new UsageError(`--var takes NAME=VALUE (NAME: 1..64 of A-Z a-z 0-9 _ . -), got ${JSON.stringify(String(entry).slice(0, 80))}`);
    variables[match[1]!] = match[2]!;
  }
  const template = stringValue(values, 'template');
  return {
    ...(template === undefined ? {} : { promptTemplateKey: template }),
    ...(Object.keys(variables).length > 0 ? { variables } : {}),
    ...(values['no-tools'] === true ? { tools: false } : {}),
  };
}

export const chatCommand: Command = {
  path: ['chat'],
  usage: 'agent-gateway chat --key KEY [--message TEXT] [--json] [--template KEY] [--var NAME=VALUE]... [--no-tools]',
  help: `Talks with the agent in a context: each line you type is appended to the context and the
agent answers (POST …/context/KEY/reply), its text streamed as it is written; each tool call
and its result are shown on stderr as they happen:
  → tool word_count {"text":"one two three"}
  ← word_count 12 ms ok
/exit or Ctrl-D ends; Ctrl-C stops a reply being written (and ends at the prompt). Lines read
from a pipe are sent one by one the same way.

Options:
  --key KEY         the context (required; create it first, e.g. with hydrate or contexts create)
  --message TEXT    send one message, print the reply, exit (for scripts)
  --json            print each answer as one JSON line ({reply, steps, usage, finishReason})
                    instead of its text
  --template KEY    the prompt template for the system message (default: "default", if saved)
  --var NAME=VALUE  a value for the template's {{NAME}} (repeatable)
  --no-tools        do not offer the agent's tools to the model

Each message carries a fresh Idempotency-Key; a reply refused with 429/502/503/504 (or without
an answer) is retried twice with the same key, so the model never runs twice for it.
Exit code 1 when a reply fails (its error code is printed), e.g. 409 llm_not_configured: save
LLM settings first (docs/replies.md, "Point the agent at a model"). Needs a login and the agent
(--collection, --token-id).`,
  options: {
    key: { type: 'string' },
    message: { type: 'string', short: 'm' },
    json: { type: 'boolean' },
    template: { type: 'string' },
    var: { type: 'string', multiple: true },
    'no-tools': { type: 'boolean' },
  },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const key = stringValue(values, 'key');
    if (!key) throw new UsageError('--key is required');
    const message = stringValue(values, 'message');
    if (message !== undefined && message.trim() === '') throw new UsageError('--message is empty');
    const request = replyRequestOf(values);
    const json = values.json === true;
    const { session, agent } = await openAgent(values as GlobalValues, env, io);

    if (message !== undefined) {
      try {
        await runTurn(agent, io, { key, request: { ...request, message }, json });
      } catch (err) {
        gatewayFailure(err, `the agent's reply in ${JSON.stringify(key)}`);
      }
      return 0;
    }

    const terminal = Boolean(io.stdin.isTTY);
    const lines = createInterface({ input: io.stdin, output: io.stderr, terminal, prompt: 'you › ' });
    let current: AbortController | undefined;
    let interrupted = false;
    let failures = 0;
    lines.on('SIGINT', () => {
      if (current) current.abort();
      else {
        interrupted = true;
        lines.close();
      }
    });
    if (terminal) {
      io.err(`chat with agent ${agent.tokenId} of ${agent.collection} at ${session.baseUrl}, context ${JSON.stringify(key)}`);
      io.err('/exit or Ctrl-D ends');
      lines.prompt();
    }
    for await (const line of lines) {
      const text = line.trim();
      if (text === '/exit' || text === '/quit') break;
      if (text !== '') {
        current = new AbortController();
        try {
          await runTurn(agent, io, {
            key,
            request: { ...request, message: text },
            json,
            label: terminal ? 'agent › ' : undefined,
            signal: current.signal,
          });
        } catch (err) {
          if (current.signal.aborted) io.err('chat: reply stopped (Ctrl-C)');
          else if (err instanceof GatewayError) {
            failures++;
            io.err(`chat: ${describeGatewayError(err)}`);
          } else throw err;
        } finally {
          current = undefined;
        }
      }
      if (terminal) lines.prompt();
    }
    lines.close();
    if (interrupted) return 130;
    return failures > 0 && !terminal ? 1 : 0;
  },
};
