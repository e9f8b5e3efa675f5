import type { ParseArgsConfig } from 'node:util';
import { type Io, UsageError } from './output';

export type OptionValues = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface CommandContext {
  /** Global and command options. */
  values: OptionValues;
  /** Positional arguments after the command words. */
  args: string[];
  env: NodeJS.ProcessEnv;
  io: Io;
}

export interface Command {
  /** Command words, e.g. ['contexts', 'create']. */
  path: string[];
  usage: string;
  /** The command's own options and notes, for --help. */
  help: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** How many positional arguments it takes. */
  args: { min: number; max: number };
  /**
   * The form of an argument that may begin with '-' (an id made by a library, such as an OAuth
   * grant id): a word of this form is an argument, not an option, so it can be pasted as listed.
   */
  dashArgs?: RegExp;
  /** Resolves with the exit code. */
  run(context: CommandContext): Promise<number>;
}

export function stringValue(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** The whole number from 1 to `max` an option such as `--parallel` holds (`fallback` when absent); a UsageError otherwise. */
export function wholeNumberOption(values: OptionValues, name: string, fallback: number, max: number): number {
  const raw = stringValue(values, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max}`);
  return Number(raw);
}

/** The JSON object an option such as `--args` holds (`fallback` when absent); a UsageError otherwise. */
export function jsonObjectOption(values: OptionValues, name: string, fallback: Record<string, unknown>): Record<string, unknown> {
  const raw = stringValue(values, name);
  if (raw === undefined) return fallback;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UsageError(`--${name} must be JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--${name} must be a JSON object`);
  return parsed as Record<string, unknown>;
}
