/**
 * A scripted OpenAI Responses API on loopback, for driving the real Codex CLI offline.
 *
 * `POST /v1/responses` is turned into model-server.ts's request form (messages of text, tool_use and
 * tool_result blocks), the policy answers in Claude Code's terms through a dialect (dialects.ts), and the
 * answer goes back as the stream of events Codex reads. A subagent is told from the main agent by the
 * `x-codex-turn-metadata` header's agent_name (`/root` is the main agent). The main agent waits for the
 * agents it spawned (collaboration.wait_agent) before it ends a turn, as Claude Code's foreground agents
 * make it wait. Every request and answer is logged as one JSON line.
 */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { listenOnLoopback, type AssistantBlock, type ModelRequest, type ModelServer, type Policy, type RecordedRequest, type RequestContentBlock, type RequestMessage } from './model-server';

type Item = Record<string, unknown> & { type: string };

const texts = (content: unknown): string[] =>
  typeof content === 'string' ? [content] : Array.isArray(content) ? content.flatMap((c) => (typeof (c as { text?: unknown }).text === 'string' ? [(c as { text: string }).text] : [])) : [];

/** A Responses request in model-server.ts's form. Developer messages before the first user message are the system prompt. */
export function toModelRequest(index: number, headers: ModelRequest['headers'], body: Record<string, unknown>): ModelRequest {
  const meta = (() => {
    try {
      return JSON.parse(String(headers['x-codex-turn-metadata'] ?? '{}')) as { agent_name?: string };
    } catch {
      return {};
    }
  })();
  const system: string[] = typeof body.instructions === 'string' ? [body.instructions] : [];
  const agent = meta.agent_name && meta.agent_name !== '/root' ? meta.agent_name : undefined;
  const items = ownItems((Array.isArray(body.input) ? body.input : []) as Item[], agent);
  const messages: RequestMessage[] = [];
  let seenUser = false;
  const push = (role: RequestMessage['role'], block: RequestContentBlock): void => {
    const last = messages.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const item of items) {
    if (item.type === 'message') {
      const role = String(item.role);
      if (role === 'user') seenUser = true;
      if (role === 'developer' && !seenUser) system.push(...texts(item.content));
      else for (const t of texts(item.content)) push(role === 'assistant' ? 'assistant' : 'user', { type: 'text', text: t });
    } else if (item.type === 'agent_message') {
      for (const t of texts(item.content)) push('user', { type: 'text', text: t });
    } else if (item.type === 'function_call') {
      let input: unknown = {};
      try {
        input = JSON.parse(String(item.arguments ?? '{}'));
      } catch {
        input = { raw: item.arguments };
      }
      push('assistant', { type: 'tool_use', id: String(item.call_id), name: String(item.name), input });
    } else if (item.type === 'custom_tool_call') {
      push('assistant', { type: 'tool_use', id: String(item.call_id), name: String(item.name), input: item.input });
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      push('user', { type: 'tool_result', tool_use_id: String(item.call_id), content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) });
    }
  }
  const tools = ((Array.isArray(body.tools) ? body.tools : []) as Item[]).flatMap((t) =>
    Array.isArray(t.tools) ? (t.tools as Item[]).map((n) => ({ name: `${String(t.name)}.${String(n.name)}` })) : [{ name: String(t.name ?? t.type) }],
  );
  return {
    index,
    path: '/v1/responses',
    headers,
    agentId: agent,
    model: typeof body.model === 'string' ? body.model : 'scripted',
    system: system.join('\n'),
    messages,
    tools,
    toolNames: tools.map((t) => t.name),
    stream: body.stream === true,
    body,
  };
}

/**
 * A subagent's own conversation. Codex forks the parent's history into a spawned agent and hands it its
 * task as a NEW_TASK message whose payload it leaves to the model provider (the spawn's `message` is an
 * encrypted field): offline the payload is empty. The task is the parent's spawn_agent message for this
 * agent; what came before the agent's own instructions is the parent's, and is left out, as Claude Code
 * gives a subagent only its task.
 */
export function ownItems(items: Item[], agent: string | undefined): Item[] {
  if (!agent) return items;
  const isTask = (item: Item): boolean => item.type === 'agent_message' && texts(item.content).some((t) => t.startsWith('Message Type: NEW_TASK') && t.includes(`Task name: ${agent}\n`));
  const k = items.findIndex(isTask);
  if (k < 0) return items;
  let message = '';
  for (const item of items.slice(0, k)) {
    if (item.type !== 'function_call' || item.name !== 'spawn_agent') continue;
    try {
      const args = JSON.parse(String(item.arguments)) as { task_name?: string; message?: string };
      if (args.task_name && agent.endsWith(`/${args.task_name}`)) message = String(args.message ?? '');
    } catch {
      /* not one of ours */
    }
  }
  // The agent's own instructions: the developer messages just before its task.
  let first = k;
  while (first > 0 && items[first - 1]!.type === 'message' && items[first - 1]!.role === 'developer') first--;
  return [...items.slice(first, k), { type: 'message', role: 'user', content: [{ type: 'input_text', text: message }] }, ...items.slice(k + 1)];
}

/**
 * The agents the main agent spawned that have not given their final answer yet (by task path). A spawn
 * counts once Codex answered it with the agent's task name: a spawn a hook refused started nothing.
 */
export function pendingAgents(body: Record<string, unknown>): string[] {
  const items = (Array.isArray(body.input) ? body.input : []) as Item[];
  const spawns = new Set(items.filter((i) => i.type === 'function_call' && i.name === 'spawn_agent').map((i) => String(i.call_id)));
  const spawned: string[] = [];
  const answered = new Set<string>();
  for (const item of items) {
    if (item.type === 'function_call_output' && spawns.has(String(item.call_id))) {
      try {
        const task = (JSON.parse(String(item.output)) as { task_name?: unknown }).task_name;
        if (typeof task === 'string') spawned.push(task);
      } catch {
        /* refused: no agent */
      }
    }
    if (item.type === 'agent_message') {
      for (const t of texts(item.content)) {
        const from = /^Message Type: FINAL_ANSWER[\s\S]*?^Sender: (\S+)/m.exec(t);
        if (from) answered.add(from[1]!);
      }
    }
  }
  return spawned.filter((name) => !answered.has(name));
}

/** The answer as Responses output items: text as a message, a namespaced name (collaboration.spawn_agent) as a namespaced call, apply_patch as a custom (freeform) call. */
function outputItems(blocks: AssistantBlock[], n: number): Item[] {
  return blocks.map((b, k): Item => {
    const id = `item_${n}_${k}`;
    if (b.type === 'text') return { type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: b.text, annotations: [] }] };
    if (b.name === 'apply_patch') return { type: 'custom_tool_call', id, status: 'completed', name: 'apply_patch', input: String(b.input), call_id: b.id };
    const dot = b.name.indexOf('.');
    const [namespace, name] = dot > 0 ? [b.name.slice(0, dot), b.name.slice(dot + 1)] : [undefined, b.name];
    return { type: 'function_call', id, status: 'completed', ...(namespace ? { namespace } : {}), name, arguments: JSON.stringify(b.input ?? {}), call_id: b.id };
  });
}

export interface ResponsesServerOptions {
  logFile?: string;
}

/** Starts the server; `policy` answers in the host's tools already (dialects.ts's inDialect). */
export async function startResponsesServer(policy: Policy, opts: ResponsesServerOptions = {}): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  let n = 0;
  const log = (entry: Record<string, unknown>): void => {
    if (!opts.logFile) return;
    try {
      appendFileSync(opts.logFile, `${JSON.stringify({ t: new Date().toISOString(), ...entry })}\n`);
    } catch {
      /* logging never breaks the server */
    }
  };
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const rec: RecordedRequest = { index: requests.length, method: req.method ?? 'GET', path: url.pathname, status: 200 };
      requests.push(rec);
      if (req.method !== 'POST' || url.pathname !== '/v1/responses') {
        rec.status = 404;
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}` } }));
        return;
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      const mreq = toModelRequest(n, req.headers, body);
      const i = n++;
      rec.request = mreq;
      let blocks: AssistantBlock[];
      try {
        blocks = await policy(mreq);
      } catch (e) {
        blocks = [{ type: 'text', text: `[responses-server policy error] ${e instanceof Error ? e.message : String(e)}` }];
      }
      // The main agent ends its turn only once every agent it spawned has answered.
      const pending = mreq.agentId === undefined ? pendingAgents(body) : [];
      if (pending.length > 0 && blocks.every((b) => b.type === 'text')) blocks = [{ type: 'tool_use', name: 'collaboration.wait_agent', input: { timeout_ms: 60_000 }, id: `wait_${i}` }];
      if (blocks.length === 0) blocks = [{ type: 'text', text: 'ok' }];
      rec.response = blocks;
      const items = outputItems(blocks, i);
      const inTokens = Math.ceil(raw.length / 4);
      const outTokens = Math.ceil(JSON.stringify(items).length / 4);
      rec.usage = { input: inTokens, output: outTokens };
      log({ i, agent: mreq.agentId ?? null, nMessages: mreq.messages.length, last: mreq.messages.at(-1), response: blocks });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const ev = (type: string, data: Record<string, unknown>): boolean => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      const id = `resp_${i}`;
      ev('response.created', { response: { id, status: 'in_progress', output: [] } });
      items.forEach((item, k) => {
        ev('response.output_item.added', { output_index: k, item });
        ev('response.output_item.done', { output_index: k, item });
      });
      ev('response.completed', { response: { id, status: 'completed', output: items, usage: { input_tokens: inTokens, output_tokens: outTokens, total_tokens: inTokens + outTokens } } });
      res.end();
    })().catch((e: unknown) => {
      log({ error: e instanceof Error ? e.stack : String(e) });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'responses-server crashed' } }));
    });
  });
  return { ...(await listenOnLoopback(server)), requests };
}
