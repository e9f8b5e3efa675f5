/** `agent-gateway hydrate --file messages.jsonl`: bulk, resumable memory hydration. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { progressBar } from './progress';
import { stringValue, wholeNumberOption, type Command } from './command';
import { parseHydrateFile, type FailedLine } from './hydrate-parse';
import { planHydration } from '../hydrate/plan';
import { DEFAULT_PARALLEL, failedLinesJsonl, runHydration, type HydrateResult } from './hydrate-run';
import { CliError, UsageError, type Io } from './output';
import { RETRY_POLICY } from './retry';
import { gatewayFailure, type GlobalValues, openAgent } from './session';
import { writePrivateFile } from './private-file';

const SHOWN_FAILURES = 20;

/** `messages.jsonl` → `messages.failed.jsonl`, next to the input. */
export function defaultFailedPath(file: string): string {
  const parsed = path.parse(path.resolve(file));
  return path.join(parsed.dir, `${parsed.ext === '.jsonl' || parsed.ext === '.json' ? parsed.name : parsed.base}.failed.jsonl`);
}

/**
 * Prints failures grouped into runs of consecutive lines with the same reason, at most
 * SHOWN_FAILURES runs, naming the failed-lines file that holds them all.
 */
function reportFailures(io: Io, title: string, lines: readonly FailedLine[], failedFile: string): void {
  if (lines.length === 0) return;
  io.err(`${title} (${lines.length}, written to ${failedFile}):`);
  const runs: { first: number; last: number; count: number; reason: string }[] = [];
  for (const line of lines) {
    const run = runs[runs.length - 1];
    if (run && run.reason === line.reason) {
      run.last = line.line;
      run.count++;
    } else runs.push({ first: line.line, last: line.line, count: 1, reason: line.reason });
  }
  for (const run of runs.slice(0, SHOWN_FAILURES)) {
    const where = run.count === 1 ? `line ${run.first}` : `lines ${run.first}-${run.last} (${run.count})`;
    io.err(`  ${where}: ${run.reason}`);
  }
  if (runs.length > SHOWN_FAILURES) io.err(`  … and ${runs.length - SHOWN_FAILURES} more (see ${failedFile})`);
}

export const hydrateCommand: Command = {
  path: ['hydrate'],
  usage: 'agent-gateway hydrate --file messages.jsonl [--create-missing] [--parallel N] [--failed-out FILE] [--dry-run] [--json]',
  help: `Each line of the file is one message: {"key": "customer:42/notes", "role": "user", "message": "..."}
(role user, system or assistant; message 2 characters to 256 KiB; key 2..255 of A-Z a-z 0-9 . _ - : / @).
Blank lines are skipped.

Every line is checked first; invalid lines (bad JSON, role, message or key) are reported with
their line numbers, written to the failed-lines file with the reason, and never sent. The valid
lines of each key are sent in file order, in batches of up to 100, each with the Idempotency-Key
hydrate:<sha256 of the file, 16 hex>:<first line>-<last line>. If a run is interrupted (crash,
Ctrl-C, network), run the same command on the same, unchanged file again: batches that were stored
are answered as replays and nothing is stored twice (the gateway remembers keys for at least 24 h).

Options:
  --file FILE          the JSONL file (required)
  --create-missing     create the file's context keys first (without it, lines of a key that does
                       not exist fail with context_not_found)
  --parallel N         keys sent at once (default 8); one key's batches are always sent in order
  --failed-out FILE    where failed lines go (default <file>.failed.jsonl next to the input), one
                       {"line", "reason", "key", "role", "message"} per line: fix them and feed
                       the file back
  --dry-run            check the file and show the plan; send nothing
  --json               print the summary as JSON on stdout

${RETRY_POLICY}
A batch that fails for good stops its key (later batches of that key are not sent, so order is
kept); 401/403 or an agent error stops the run. Exit code 1 when any line failed.

Needs a login (agent-gateway login), or an agent key with contexts:write (AGENT_GATEWAY_API_KEY
or --api-key-env NAME; a pipeline then holds no wallet), and the agent (--collection, --token-id).`,
  options: {
    file: { type: 'string' },
    'create-missing': { type: 'boolean' },
    parallel: { type: 'string' },
    'failed-out': { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const file = stringValue(values, 'file');
    if (!file) throw new UsageError('--file is required');
    const parallel = wholeNumberOption(values, 'parallel', DEFAULT_PARALLEL, 64);
    const failedOut = path.resolve(stringValue(values, 'failed-out') ?? defaultFailedPath(file));
    const json = values.json === true;

    let content: Buffer;
    try {
      content = await readFile(file);
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const parsed = parseHydrateFile(content);
    const plan = planHydration(parsed);
    io.err(
      `hydrate: ${parsed.lineCount} lines in ${file}: ${parsed.records.length} valid over ${plan.keys.length} keys in ${plan.batchCount} batches, ${parsed.invalid.length} invalid (file ${parsed.fileId})`,
    );
    reportFailures(io, 'invalid lines, not sent', parsed.invalid, failedOut);

    const writeFailed = async (lines: readonly FailedLine[]) => {
      if (lines.length === 0) return;
      await writePrivateFile(failedOut, failedLinesJsonl(lines));
    };

    if (values['dry-run'] === true) {
      io.out(`dry run: would send ${parsed.records.length} messages in ${plan.batchCount} batches over ${plan.keys.length} keys`);
      return parsed.invalid.length > 0 ? 1 : 0;
    }

    let result: HydrateResult = { sent: 0, replayed: 0, failed: [], requests: 0, createdKeys: 0, seconds: 0 };
    if (plan.totalMessages > 0) {
      const { agent } = await openAgent(values as GlobalValues, env, io);
      try {
        await agent.summary();
      } catch (err) {
        gatewayFailure(err, `cannot use agent ${agent.tokenId} of ${agent.collection}`);
      }

      const bar = progressBar('hydrate', plan.totalMessages, io.stderr);
      const tty = Boolean(io.stderr.isTTY);
      const onSigint = () => {
        io.err(
          `${tty ? '\n' : ''}hydrate: interrupted; run the same command again to resume (stored batches are replayed, nothing is stored twice)`,
        );
        process.exit(130);
      };
      process.once('SIGINT', onSigint);
      try {
        result = await runHydration(agent, plan, {
          parallel,
          createMissing: values['create-missing'] === true,
          // failed counts the invalid lines too, as the summary does
          onProgress: (p) => bar.update(p.done, `sent ${p.sent} replayed ${p.replayed} failed ${parsed.invalid.length + p.failed}`),
          onNotice: (line) => io.err(`${tty ? '\r\x1b[K' : ''}hydrate: ${line}`),
        });
      } finally {
        process.off('SIGINT', onSigint);
        bar.finish();
      }
      reportFailures(io, 'lines not stored', result.failed, failedOut);
    }

    const allFailed = [...parsed.invalid, ...result.failed].sort((a, b) => a.line - b.line);
    await writeFailed(allFailed);
    const stored = result.sent + result.replayed;
    const rate = result.seconds > 0 ? stored / result.seconds : 0;
    if (json) {
      io.out(
        JSON.stringify({
          file,
          fileId: parsed.fileId,
          lines: parsed.lineCount,
          valid: parsed.records.length,
          invalid: parsed.invalid.length,
          keys: plan.keys.length,
          batches: plan.batchCount,
          createdKeys: result.createdKeys,
          sent: result.sent,
          replayed: result.replayed,
          failed: allFailed.length,
          seconds: Number(result.seconds.toFixed(3)),
          messagesPerSecond: Number(rate.toFixed(1)),
          failedFile: allFailed.length > 0 ? failedOut : null,
          stopped: result.stopped ?? null,
        }),
      );
    } else {
      const why = allFailed.length > 0 ? ` (${parsed.invalid.length} invalid, ${result.failed.length} not stored)` : '';
      io.out(
        `hydrate: sent ${result.sent}, replayed ${result.replayed}, failed ${allFailed.length}${why} of ${parsed.lineCount} lines in ${result.seconds.toFixed(1)} s (${rate.toFixed(0)} messages/s)`,
      );
      if (allFailed.length > 0) io.out(`failed lines written to ${failedOut}`);
      if (result.stopped) io.out(`the run stopped early: ${result.stopped}; fix it and run the same command again to resume`);
    }
    return allFailed.length > 0 ? 1 : 0;
  },
};
