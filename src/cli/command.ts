import type { ParseArgsConfig } from 'node:util';
import type { Io } from './output';

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
  /** Resolves with the exit code. */
  run(context: CommandContext): Promise<number>;
}

export function stringValue(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}
