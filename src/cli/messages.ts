/** `agent-gateway messages export --key K --out file.jsonl`. */
import { once } from 'node:events';
import { stringValue, type Command } from './command';
import { UsageError } from './output';
import { openPrivateOutput, type PrivateOutput } from './private-file';
import { agentOf, gatewayFailure, openSession, type GlobalValues } from './session';

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
    const session = await openSession(values as GlobalValues, env, io);
    const agent = agentOf(session, values as GlobalValues, env);
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
