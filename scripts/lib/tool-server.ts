/**
 * The example tool server (examples/tool-server) on a free loopback port, for the benchmarks and
 * the soak that call a tool: started with node as its README says, answered once it listens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { REPO_ROOT } from './migrate';
import { freePort, sleep } from './processes';

/** Starts it with `apiKey` as its TOOL_SERVER_API_KEY; gives up after `tries` × 100 ms. */
export async function startToolServer(apiKey: string, tries = 100): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/tool-server/server.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), TOOL_SERVER_API_KEY: apiKey },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < tries; i++) {
    const up = await fetch(url).then(
      () => true,
      () => false,
    );
    if (up) return { url, child };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`the example tool server did not answer within ${tries / 10} s`);
}
