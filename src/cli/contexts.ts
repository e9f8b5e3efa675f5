/** `agent-gateway contexts create --file keys.txt` and `agent-gateway contexts list`. */
import { readFile } from 'node:fs/promises';
import { progressBar } from './progress';
import type { ContextBatchResultItem } from '../client/types';
import { stringValue, type Command } from './command';
import { CliError, UsageError } from './output';
import { withRetry } from './retry';
import { agentOf, gatewayFailure, openSession, type GlobalValues } from './session';

const BATCH = 100;

/** Keys of a keys file with their line numbers: one per line, blank lines and `#` comments skipped. */
export function parseKeysFile(text: string): { line: number; key: string }[] {
  const keys: { line: number; key: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    const key = raw
      .replace(/\r$/, '')
      .replace(/^\uFEFF/, '')
      .trim();
    if (key === '' || key.startsWith('#')) return;
    keys.push({ line: i + 1, key });
  });
  return keys;
}

export const contextsCreateCommand: Command = {
  path: ['contexts', 'create'],
  usage: 'agent-gateway contexts create --file keys.txt [--json]',
  help: `Creates the keys of a file (one key per line; blank lines and lines starting with # are
skipped) with the batch endpoint, 100 at a time. Prints how many were created, already existed
or were invalid, and lists the invalid keys with their line numbers. Safe to repeat.

Options:
  --file FILE   the keys file (required)
  --json        print every result as JSON ({ line, key, status, reason?, message? }) on stdout

Exit code 1 when any key is invalid. Needs a login and the agent (--collection, --token-id).`,
  options: { file: { type: 'string' }, json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const file = stringValue(values, 'file');
    if (!file) throw new UsageError('--file is required');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const keys = parseKeysFile(text);
    if (keys.length === 0) {
      io.err(`contexts create: no keys in ${file}`);
      return 0;
    }
    const session = await openSession(values as GlobalValues, env, io);
    const agent = agentOf(session, values as GlobalValues, env);
    const results: (ContextBatchResultItem & { line: number })[] = [];
    const bar = keys.length > BATCH ? progressBar('contexts create', keys.length, io.stderr) : undefined;
    for (let i = 0; i < keys.length; i += BATCH) {
      const chunk = keys.slice(i, i + BATCH);
      let answer: Awaited<ReturnType<typeof agent.createContexts>>;
      try {
        answer = await withRetry(() => agent.createContexts(chunk.map((k) => k.key)), {
          onRetry: (err, attempt) => io.err(`contexts create: retrying after ${err.status} ${err.code} (attempt ${attempt + 1})`),
        });
      } catch (err) {
        bar?.finish();
        gatewayFailure(err, `creating keys (lines ${chunk[0]!.line}-${chunk[chunk.length - 1]!.line})`);
      }
      for (const [j, result] of answer.results.entries()) results.push({ line: chunk[j]!.line, ...result });
      bar?.update(Math.min(i + BATCH, keys.length));
    }
    bar?.finish();
    const count = (status: string) => results.filter((r) => r.status === status).length;
    const invalid = results.filter((r) => r.status === 'invalid');
    if (values.json === true) {
      io.out(JSON.stringify(results, null, 2));
    } else {
      io.out(`contexts create: ${results.length} keys: created ${count('created')}, exists ${count('exists')}, invalid ${invalid.length}`);
      for (const r of invalid) io.out(`  line ${r.line}: ${JSON.stringify(r.key)}: ${r.message ?? r.reason ?? 'invalid'}`);
    }
    return invalid.length > 0 ? 1 : 0;
  },
};

export const contextsListCommand: Command = {
  path: ['contexts', 'list'],
  usage: 'agent-gateway contexts list [--search TEXT] [--desc] [--json]',
  help: `Lists every context key of the agent in byte order, walking all pages.

Options:
  --search TEXT   only keys containing TEXT (case-insensitive)
  --desc          reverse byte order
  --json          print a JSON array instead of one key per line

Needs a login and the agent (--collection, --token-id).`,
  options: { search: { type: 'string' }, desc: { type: 'boolean' }, json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const session = await openSession(values as GlobalValues, env, io);
    const agent = agentOf(session, values as GlobalValues, env);
    const keys: string[] = [];
    try {
      const search = stringValue(values, 'search');
      for await (const key of agent.contextKeys({ elementsPerPage: 100, search, sortDirection: values.desc === true ? 'desc' : 'asc' })) {
        if (values.json === true) keys.push(key);
        else io.out(key);
      }
    } catch (err) {
      gatewayFailure(err, 'listing keys');
    }
    if (values.json === true) io.out(JSON.stringify(keys, null, 2));
    return 0;
  },
};
