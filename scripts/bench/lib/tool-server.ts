/** The example tool server (examples/tool-server) on a free loopback port, for the benchmarks that call a tool. */
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../lib/processes';
import { BenchError, REPO_ROOT } from '../lib';

export async function startToolServer(apiKey: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/tool-server/server.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), TOOL_SERVER_API_KEY: apiKey },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return { url, child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  throw new BenchError('the example tool server did not start');
}
