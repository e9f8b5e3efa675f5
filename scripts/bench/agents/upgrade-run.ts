/**
 * The real `npm run agents:upgrade` over every schema below the template's version, as an operator
 * runs it: once killed with SIGKILL about half way (from its progress lines, or the upgraded rows
 * polled every 50 ms, whichever shows half first), then again to completion. Checks that every
 * schema ends at the last version with a given index of the template (v2's by default), none was
 * skipped and none upgraded twice.
 */
import { spawn } from 'node:child_process';
import type pg from 'pg';
import { TEMPLATE_VERSION } from '../../../src/storage/agent-template';
import { REPO_ROOT, now } from '../lib';

export interface RunFigures {
  wallMs: number;
  /** Schemas this run committed at the last version (counted in the database). */
  upgraded: number;
  /** The last `done/total` its progress printed, or its final line. */
  reported: number;
  /** The `total` of its first progress line: the schemas it found below the last version. */
  found: number;
  /** First to last upgrade commit of the run, from `upgraded_at` (no process start-up). */
  spanMs: number;
  killed: boolean;
  exitCode: number | null;
  /** Schemas a stopped run left half indexed, as this run reported finishing them (0 when none). */
  finished: number;
}

export interface UpgradeFigures {
  /** Schemas below the last version when the first run started. */
  total: number;
  killed: RunFigures;
  resumed: RunFigures;
  checks: { label: string; ok: boolean; detail: string }[];
}

interface Child {
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
  reported(): number;
  found(): number;
  finished(): number;
}

/** `npm run agents:upgrade -- --batch 100` in its own process group, its output forwarded to stderr. */
function startUpgrade(databaseUrl: string): Child {
  const child = spawn('npm', ['run', '--silent', 'agents:upgrade', '--', '--batch', '100'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let reported = 0;
  let found = -1;
  let finished = 0;
  let pending = '';
  const onData = (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split(/[\r\n]/);
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const progress = / (\d+)\/(\d+) /.exec(line);
      if (progress && found < 0) found = Number(progress[2]);
      const counted = progress ?? /^upgraded (\d+) agent schema/.exec(line);
      if (counted) reported = Number(counted[1]);
      const unfinished = /^finishing the search index of (\d+)/.exec(line);
      if (unfinished) finished = Number(unfinished[1]);
      if (line.trim() && !line.startsWith('npm warn')) process.stderr.write(`  agents:upgrade: ${line.trim()}\n`);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    done,
    kill: () => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    },
    reported: () => reported,
    found: () => found,
    finished: () => finished,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Row {
  schema_name: string;
  template_version: number;
  upgraded_at: string;
}

async function rows(db: pg.Client, names: readonly string[]): Promise<Map<string, Row>> {
  const { rows: found } = await db.query<Row>(
    `select schema_name, template_version, upgraded_at::text as upgraded_at from gateway.agent_storage where schema_name = any($1)`,
    [names],
  );
  return new Map(found.map((r) => [r.schema_name, r]));
}

async function dbNow(db: pg.Client): Promise<string> {
  const { rows: r } = await db.query<{ now: string }>('select clock_timestamp()::text as now');
  return r[0]!.now;
}

/** Schemas at the last version upgraded since `since`, and the span of their commits. */
async function upgradedSince(db: pg.Client, names: readonly string[], since: string): Promise<{ n: number; spanMs: number }> {
  const { rows: r } = await db.query<{ n: string; span: string | null }>(
    `select count(*) as n, extract(epoch from max(upgraded_at) - min(upgraded_at)) * 1000 as span
       from gateway.agent_storage where schema_name = any($1) and template_version = $2 and upgraded_at >= $3::timestamptz`,
    [names, TEMPLATE_VERSION, since],
  );
  return { n: Number(r[0]?.n ?? 0), spanMs: Number(r[0]?.span ?? 0) };
}

async function run(db: pg.Client, databaseUrl: string, names: readonly string[], killAt: number | null): Promise<RunFigures> {
  const since = await dbNow(db);
  const t0 = now();
  const child = startUpgrade(databaseUrl);
  let exited = false;
  void child.done.then(() => {
    exited = true;
  });
  let killed = false;
  if (killAt !== null) {
    while (!exited) {
      const polled = await upgradedSince(db, names, since);
      if (child.reported() >= killAt || polled.n >= killAt) {
        child.kill();
        killed = true;
        break;
      }
      await sleep(50);
    }
  }
  const { code } = await child.done;
  const wallMs = now() - t0;
  await sleep(500); // the server aborts the killed run's open transaction when it sees the socket close
  const counted = await upgradedSince(db, names, since);
  return {
    wallMs,
    upgraded: counted.n,
    reported: child.reported(),
    found: child.found(),
    spanMs: counted.spanMs,
    killed,
    exitCode: code,
    finished: child.finished(),
  };
}

/** An index of the template every upgraded schema must have afterwards. */
export interface ExpectedIndex {
  table: string;
  name: string;
  /** The template version that adds it, for the check's label. */
  version: number;
}

const V2_INDEX: ExpectedIndex = { table: 'idempotency', name: 'idempotency_created_at', version: 2 };

/** Runs the kill-and-resume upgrade over every schema below the last version and checks the outcome. */
export async function upgradeKillAndResume(db: pg.Client, databaseUrl: string, index: ExpectedIndex = V2_INDEX): Promise<UpgradeFigures> {
  const { rows: below } = await db.query<{ schema_name: string }>(
    'select schema_name from gateway.agent_storage where template_version < $1 order by schema_name',
    [TEMPLATE_VERSION],
  );
  const names = below.map((r) => r.schema_name);
  const total = names.length;
  const killed = await run(db, databaseUrl, names, Math.ceil(total / 2));
  const afterKill = await rows(db, names);
  const resumed = await run(db, databaseUrl, names, null);
  const end = await rows(db, names);

  const firstRun = [...afterKill.values()].filter((r) => r.template_version === TEMPLATE_VERSION);
  const notAtLast = names.filter((n) => end.get(n)?.template_version !== TEMPLATE_VERSION);
  const reUpgraded = firstRun.filter((r) => end.get(r.schema_name)?.upgraded_at !== r.upgraded_at);
  const { rows: indexed } = await db.query<{ n: string }>(
    'select count(*) as n from pg_indexes where schemaname = any($1) and tablename = $2 and indexname = $3',
    [names, index.table, index.name],
  );
  const withIndex = Number(indexed[0]?.n ?? 0);
  const checks = [
    {
      label: 'the first run was killed part way',
      ok: killed.killed && killed.upgraded > 0 && killed.upgraded < total,
      detail: `${killed.upgraded} of ${total} committed when killed`,
    },
    { label: 'the rerun exited 0', ok: resumed.exitCode === 0, detail: `exit code ${resumed.exitCode}` },
    {
      label: 'the rerun upgraded exactly the rest',
      ok: resumed.found === total - firstRun.length && resumed.upgraded === resumed.found && resumed.reported === resumed.upgraded,
      detail: `${total - firstRun.length} left by the first run; the rerun found ${resumed.found}, upgraded ${resumed.upgraded} (its summary: ${resumed.reported})`,
    },
    {
      label: 'none skipped: every schema at the last version',
      ok: notAtLast.length === 0,
      detail: `${notAtLast.length} not at v${TEMPLATE_VERSION}`,
    },
    { label: 'none upgraded twice', ok: reUpgraded.length === 0, detail: `${reUpgraded.length} of the first run's upgraded again` },
    { label: `the v${index.version} index exists in every schema`, ok: withIndex === total, detail: `${withIndex} of ${total}` },
  ];
  return { total, killed, resumed, checks };
}
