/**
 * The memory benchmark's command line: sizes, `--only a,b` (sections to run; `lists` brings
 * `seeding`), `--write`, and the command as it will be recorded in BENCHMARKS.md.
 */
import { BenchError, booleanFlag, numberFlag, parseFlags, rejectUnknownFlags } from '../lib';
import type { MemoryOptions } from './common';

export const SECTIONS = ['seeding', 'lists', 'appends', 'provisioning', 'critical-path', 'ceiling'] as const;
export type SectionName = (typeof SECTIONS)[number];
const DEFAULTS = { big: 1_000_000, small: 10_000, requests: 50, appends: 2000, batches: 200, fresh: 20, seconds: 5 };

export function readOptions(argv: readonly string[]): { options: MemoryOptions; only: Set<SectionName>; command: string } {
  const flags = parseFlags(argv);
  rejectUnknownFlags(flags, [...Object.keys(DEFAULTS), 'only', 'write']);
  const n = (name: keyof typeof DEFAULTS) => Math.round(numberFlag(flags, name, DEFAULTS[name]));
  const options: MemoryOptions = {
    big: n('big'),
    small: n('small'),
    requests: n('requests'),
    appends: n('appends'),
    batches: n('batches'),
    fresh: n('fresh'),
    seconds: numberFlag(flags, 'seconds', DEFAULTS.seconds),
    write: booleanFlag(flags, 'write'),
  };
  if (options.small < 2 || options.big < 2)
    throw new BenchError('--big and --small must be at least 2 (one key comes from the provisioning POST)');
  const raw = flags.values.get('only');
  const only = new Set<SectionName>();
  for (const name of raw === undefined ? SECTIONS : raw.split(',').map((s) => s.trim())) {
    if (!(SECTIONS as readonly string[]).includes(name))
      throw new BenchError(`--only: unknown section ${JSON.stringify(name)}; known: ${SECTIONS.join(', ')}`);
    only.add(name as SectionName);
  }
  if (only.has('lists')) only.add('seeding');
  const args = [...flags.values.entries()].filter(([k]) => k !== 'write').map(([k, v]) => `--${k} ${v}`);
  if (options.write) args.push('--write');
  const command = args.length > 0 ? `npm run bench -- ${args.join(' ')}` : 'npm run bench';
  return { options, only, command };
}
