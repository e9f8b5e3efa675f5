/** `agent-gateway contexts create --file keys.txt` and `agent-gateway contexts list [--after KEY] [--all]`. */
import { readFile } from 'node:fs/promises';
import type { ContextBatchResultItem, ContextKeysQuery } from '../client/types';
import { KEY_PROBLEM_TEXT, keyProblem } from '../contexts/rules';
import { type ProgressBar, progressBar } from './progress';
import { stringValue, type Command, type OptionValues } from './command';
import { CliError, UsageError } from './output';
import { withRetry } from './retry';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

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

Exit code 1 when any key is invalid. Needs a login, or an agent key with contexts:write
(AGENT_GATEWAY_API_KEY or --api-key-env NAME), and the agent (--collection, --token-id).`,
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
    const { agent } = await openAgent(values as GlobalValues, env, io);
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
  usage: 'agent-gateway contexts list [--search TEXT] [--desc] [--after KEY] [--limit N] [--all] [--json]',
  help: `Lists the agent's context keys in byte order, by keyset cursor.

Without --after or --limit it prints every key, walking all pages (as --all does). With --after
or --limit it prints one page: the keys that come after KEY in the chosen order, and on stderr
the next cursor to pass as --after (or that no more keys follow).

Options:
  --search TEXT   only keys containing TEXT (case-insensitive)
  --desc          reverse byte order (--after then means: keys before KEY)
  --after KEY     start after KEY (any valid key; it need not exist)
  --limit N       keys per page, 1..100 (default 100)
  --all           every key from --after on, walking pages by cursor; progress on stderr
  --json          every key: a JSON array; one page: { contextKeys, nextAfter, totalElements }

Needs a login, or an agent key with contexts:read (AGENT_GATEWAY_API_KEY or --api-key-env
NAME), and the agent (--collection, --token-id).`,
  options: {
    search: { type: 'string' },
    desc: { type: 'boolean' },
    after: { type: 'string' },
    limit: { type: 'string' },
    all: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const query = contextsListQuery(values);
    const walk = values.all === true || (query.after === undefined && values.limit === undefined);
    const { agent } = await openAgent(values as GlobalValues, env, io);
    try {
      if (!walk) {
        const page = await agent.listContextKeys(query);
        if (values.json === true) {
          io.out(JSON.stringify({ contextKeys: page.contextKeys, nextAfter: page.nextAfter, totalElements: page.totalElements }, null, 2));
        } else {
          for (const key of page.contextKeys) io.out(key);
        }
        io.err(page.nextAfter === null ? 'contexts list: no more keys' : `contexts list: more keys follow: --after ${page.nextAfter}`);
        return 0;
      }
      const keys: string[] = [];
      let bar: ProgressBar | undefined;
      let done = 0;
      let total = 0;
      for await (const page of agent.contextKeyPages(query)) {
        // The bar appears once a second page is needed. Its total counts every matching key, also
        // those before --after, so a walk from a cursor ends short of 100%.
        if (!bar && page.nextAfter !== null) {
          total = page.totalElements;
          bar = progressBar('contexts list', total, io.stderr);
        }
        for (const key of page.contextKeys) {
          if (values.json === true) keys.push(key);
          else io.out(key);
        }
        done += page.contextKeys.length;
        bar?.update(done);
      }
      bar?.finish(`contexts list: ${done} keys listed (${total} match in all)`);
      if (values.json === true) io.out(JSON.stringify(keys, null, 2));
    } catch (err) {
      gatewayFailure(err, 'listing keys');
    }
    return 0;
  },
};

/** The list query of the options; a bad --after or --limit is a usage error before any request. */
export function contextsListQuery(values: OptionValues): ContextKeysQuery {
  const after = stringValue(values, 'after');
  if (after !== undefined) {
    const problem = keyProblem(after);
    if (problem) throw new UsageError(`--after ${KEY_PROBLEM_TEXT[problem]}`);
  }
  const limit = stringValue(values, 'limit');
  if (limit !== undefined && !/^(100|[1-9]\d?)$/.test(limit)) throw new UsageError('--limit must be a whole number from 1 to 100');
  return {
    elementsPerPage: limit === undefined ? BATCH : Number(limit),
    search: stringValue(values, 'search'),
    sortDirection: values.desc === true ? 'desc' : 'asc',
    after,
  };
}
