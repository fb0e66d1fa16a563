import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * A Chat Completions server in a process of its own, answering every request after a fixed
 * latency with the SSE frames the API streams (one text delta, the stop, the usage). The AI
 * benches point the `openai-compatible` adapter (or the bare SDK) at it, so the server keeps its
 * 20 ms whatever the bench process is doing (its SSE client reads every event of the run).
 */

// Plain JavaScript, so the server needs nothing but Node.
const script = (latencyMs: number) => `
const http = require('node:http');
const chunk = (c) => 'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'bench', ...c }) + '\\n\\n';
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: null }] }));
    res.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    res.write(chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }));
    res.end('data: [DONE]\\n\\n');
  }, ${latencyMs}));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

export interface ChatServerProcess {
  /** The base URL, `/v1` included. */
  url: string;
  /** The server's process, for its CPU time. */
  pid: number;
  close(): Promise<void>;
}

export async function startChatServerProcess(latencyMs: number): Promise<ChatServerProcess> {
  const child: ChildProcess = spawn(process.execPath, ['-e', script(latencyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout!, 'data')) as [Buffer];
  return {
    url: `http://127.0.0.1:${port.toString().trim()}/v1`,
    pid: child.pid!,
    async close() {
      child.kill();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}
