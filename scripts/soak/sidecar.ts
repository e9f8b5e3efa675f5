/**
 * The soak's stand-ins that a fault switches (the stand-in model, the fault proxies in front of
 * the chain RPC and the tool server), run in a worker thread: the soak's own thread blocks at
 * moments (Postgres' start runs synchronous checks, the leftover scans read /proc), and a model or
 * proxy that shares its event loop would then answer late, a fault the soak did not mean to inject.
 * Messages in: `stall` {value}, `mode` {proxy, mode}, `hold` {holdMs} / `unhold`, `close`.
 * Messages out: `ready` {rpcUrl, toolUrl, llmBaseUrl}, `held` (the held completion arrived), `closed`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { defaultReply, startStandinLlm } from '../lib/standin-llm';
import { type ProxyMode, startFaultProxy } from './fault-proxy';
import { MODEL_STALL_MS } from './timeouts';

export type SidecarMessage =
  | { type: 'stall'; value: boolean }
  | { type: 'mode'; proxy: 'rpc' | 'tool'; mode: ProxyMode }
  | { type: 'hold'; holdMs: number }
  | { type: 'unhold' }
  | { type: 'close' };

const port = parentPort;
if (!port) throw new Error('sidecar.ts runs as a worker thread');
const { rpcTarget, toolTarget } = workerData as { rpcTarget: string; toolTarget: string };
const rpc = await startFaultProxy(rpcTarget);
const tool = await startFaultProxy(toolTarget);
let stalled = false;
let holdMs: number | undefined;
const standin = await startStandinLlm({
  script: (request) => {
    if (stalled) return { ...defaultReply(request.body), delayMs: MODEL_STALL_MS };
    if (holdMs === undefined) return undefined;
    const delayMs = holdMs;
    holdMs = undefined;
    port.postMessage({ type: 'held' });
    return { ...defaultReply(request.body), delayMs };
  },
});
port.on('message', (message: SidecarMessage) => {
  switch (message.type) {
    case 'stall':
      stalled = message.value;
      break;
    case 'mode':
      (message.proxy === 'rpc' ? rpc : tool).setMode(message.mode);
      break;
    case 'hold':
      holdMs = message.holdMs;
      break;
    case 'unhold':
      holdMs = undefined;
      break;
    case 'close':
      void Promise.all([rpc.close(), tool.close(), standin.close()]).then(() => port.postMessage({ type: 'closed' }));
      break;
  }
});
port.postMessage({ type: 'ready', rpcUrl: rpc.url, toolUrl: tool.url, llmBaseUrl: standin.baseUrl });
