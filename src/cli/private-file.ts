/**
 * Files the CLI writes for the user (hydrate's failed lines, `messages export --out`, saved
 * logins): never through a link. The text goes to a new temporary file beside the target, created
 * exclusively without following links (O_CREAT | O_EXCL | O_NOFOLLOW), mode 0600, and is renamed
 * into place once complete; a target that is a symbolic link (or not a regular file) is refused.
 * Renaming replaces a link planted after the check, never the file it points to, so anyone who can
 * write the directory cannot make a run overwrite `~/.bashrc` through it.
 */
import { randomBytes } from 'node:crypto';
import { constants, type WriteStream } from 'node:fs';
import { chmod, lstat, open, rename, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { CliError } from './output';

const EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A file being written: `stream` goes to the temporary file; `commit` puts it in place, `abort` drops it. */
export interface PrivateOutput {
  stream: WriteStream;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

function failure(label: string, err: unknown): CliError {
  if (err instanceof CliError) return err;
  return new CliError(`cannot write ${label}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
}

/** Refuses a target that exists and is a link, a directory or anything but a regular file. */
async function checkTarget(target: string, label: string): Promise<void> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw failure(label, err);
  }
  if (stats.isSymbolicLink()) throw new CliError(`refusing to write ${label}: it is a symbolic link`);
  if (!stats.isFile()) throw new CliError(`refusing to write ${label}: it is not a regular file`);
}

function temporaryBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Opens `target` for writing as described above; `label` names it in errors (default: the path). */
export async function openPrivateOutput(target: string, label = target): Promise<PrivateOutput> {
  await checkTarget(target, label);
  const temporary = temporaryBeside(target);
  let stream: WriteStream;
  try {
    stream = (await open(temporary, EXCLUSIVE, 0o600)).createWriteStream();
  } catch (err) {
    throw failure(label, err);
  }
  const closed = async () => {
    if (!stream.closed) {
      stream.end();
      await once(stream, 'close');
    }
  };
  return {
    stream,
    async commit() {
      try {
        await closed();
        await checkTarget(target, label);
        await rename(temporary, target);
      } catch (err) {
        await rm(temporary, { force: true });
        throw failure(label, err);
      }
    },
    async abort() {
      stream.destroy();
      await rm(temporary, { force: true });
    },
  };
}

/** Writes `text` to `target` in one go, as described above. */
export async function writePrivateFile(target: string, text: string, label = target): Promise<void> {
  await checkTarget(target, label);
  const temporary = temporaryBeside(target);
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: EXCLUSIVE });
    await chmod(temporary, 0o600); // the umask may have narrowed it; never widened
    await rename(temporary, target);
  } catch (err) {
    await rm(temporary, { force: true });
    throw failure(label, err);
  }
}
