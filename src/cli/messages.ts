/** `agent-gateway messages export --key K --out file.jsonl` and `agent-gateway messages summary --key K`. */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../client/errors';
import { stringValue, wholeNumberOption, type Command } from './command';
import { UsageError } from './output';
import { openPrivateOutput, type PrivateOutput } from './private-file';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

async function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

export const messagesExportCommand: Command = {
  path: ['messages', 'export'],
  usage: 'agent-gateway messages export --key KEY [--out FILE]',
  help: `Writes every message of a context, in stored order, one JSON object per line:
{"key", "role", "message", "id", "createdAt"}. The output is a valid hydrate input.

Options:
  --key KEY    the context key (required)
  --out FILE   the output file (default: stdout; "-" is stdout too)

Needs a login, or an agent key with contexts:read (AGENT_GATEWAY_API_KEY or --api-key-env
NAME), and the agent (--collection, --token-id).`,
  options: { key: { type: 'string' }, out: { type: 'string' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const key = stringValue(values, 'key');
    if (!key) throw new UsageError('--key is required');
    const out = stringValue(values, 'out');
    const { agent } = await openAgent(values as GlobalValues, env, io);
    let stream: NodeJS.WritableStream = process.stdout;
    let file: PrivateOutput | undefined;
    if (out && out !== '-') {
      file = await openPrivateOutput(out); // never through a link; in place only when complete
      stream = file.stream;
    }
    let count = 0;
    try {
      for await (const m of agent.messages(key, { limit: 100 })) {
        await write(stream, `${JSON.stringify({ key, role: m.role, message: m.message, id: m.id, createdAt: m.createdAt })}\n`);
        count++;
      }
    } catch (err) {
      await file?.abort();
      gatewayFailure(err, `reading ${JSON.stringify(key)}`);
    }
    await file?.commit();
    io.err(`messages export: ${count} messages of ${JSON.stringify(key)}${file ? ` written to ${out}` : ''}`);
    return 0;
  },
};

/** How often `messages summary --wait` asks again. */
const WAIT_STEP_MS = 500;

export const messagesSummaryCommand: Command = {
  path: ['messages', 'summary'],
  usage: 'agent-gateway messages summary --key KEY [--wait SECONDS] [--json]',
  help: `Prints a context's summary: what the agent's model wrote of the messages its replies had to
leave out, and the message ids it covers. The messages themselves never change. A context no reply
has trimmed yet has none (exit 1, summary_not_found).

Options:
  --key KEY         the context key (required)
  --wait SECONDS    when there is none yet, ask again every half second for up to SECONDS (1-300):
                    a reply writes its summary just after it answers
  --json            the summary as JSON: {"contextKey", "summary", "fromId", "toId", "createdAt"}

Needs a login, or an agent key with contexts:read (AGENT_GATEWAY_API_KEY or --api-key-env
NAME), and the agent (--collection, --token-id).`,
  options: { key: { type: 'string' }, wait: { type: 'string' }, json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const key = stringValue(values, 'key');
    if (!key) throw new UsageError('--key is required');
    const waitUntil = Date.now() + 1000 * (values.wait === undefined ? 0 : wholeNumberOption(values, 'wait', 0, 300));
    const { agent } = await openAgent(values as GlobalValues, env, io);
    let summary: Awaited<ReturnType<typeof agent.readSummary>>;
    for (;;) {
      try {
        summary = await agent.readSummary(key);
        break;
      } catch (err) {
        const none = err instanceof GatewayError && err.code === 'summary_not_found';
        if (!none || Date.now() + WAIT_STEP_MS > waitUntil) gatewayFailure(err, `reading the summary of ${JSON.stringify(key)}`);
      }
      await sleep(WAIT_STEP_MS);
    }
    if (values.json === true) io.out(JSON.stringify(summary, null, 2));
    else
      io.out(`messages ${summary.fromId}..${summary.toId} of ${JSON.stringify(key)}, summarised ${summary.createdAt}:\n${summary.summary}`);
    return 0;
  },
};
