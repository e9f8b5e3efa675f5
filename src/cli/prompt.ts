/** Reads a secret from the terminal without echoing it. */
import { CliError } from './output';

export async function promptHidden(
  question: string,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<string> {
  if (!input.isTTY || typeof input.setRawMode !== 'function') throw new CliError('cannot prompt: standard input is not a terminal');
  output.write(question);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n') {
            input.off('data', onData);
            return resolve(value);
          }
          if (ch === '\u0003') {
            input.off('data', onData);
            return reject(new CliError('cancelled', 130));
          }
          if (ch === '\u0004' && value === '') {
            input.off('data', onData);
            return reject(new CliError('no password given'));
          }
          if (ch === '\u007f' || ch === '\b') value = Array.from(value).slice(0, -1).join('');
          else if (ch === '\u0015')
            value = ''; // Ctrl-U
          else if (ch >= ' ') value += ch;
        }
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(wasRaw);
    input.pause();
    output.write('\n');
  }
}
