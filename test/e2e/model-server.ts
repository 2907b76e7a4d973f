/**
 * A scripted Anthropic Messages API on loopback, for driving the real Claude Code CLI offline.
 *
 * `POST /v1/messages` (any query string) answers with server-sent events in the streaming format
 * the CLI expects (or a plain JSON message when the request has `stream: false`). What the
 * assistant says is decided by a `policy` function that sees the parsed request. Requests that
 * carry no tools (session titles, summaries, ...) get a short text answer without asking the policy
 * unless `askPolicyWithoutTools` is set. `POST /v1/messages/count_tokens` answers a token estimate;
 * any other path gets a 404 JSON error. Every request and response is logged as one JSON line.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";

export type TextBlock = { type: "text"; text: string };
export type ToolUseBlock = { type: "tool_use"; name: string; input: unknown; id?: string };
export type AssistantBlock = TextBlock | ToolUseBlock;

/** A content block as it appears in a request's `messages` (loosely typed: the CLI sends many kinds). */
export interface RequestContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  [k: string]: unknown;
}

export interface RequestMessage {
  /** The CLI also sends "system"-role messages inside `messages` (environment info, hook feedback). */
  role: "user" | "assistant" | "system";
  content: string | RequestContentBlock[];
}

export interface RequestTool {
  name: string;
  description?: string;
  input_schema?: unknown;
  [k: string]: unknown;
}

/** What the policy sees: one parsed `/v1/messages` request. */
export interface ModelRequest {
  /** 0-based index over all /v1/messages requests this server received. */
  index: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The `x-claude-code-agent-id` header: set on subagent requests, undefined on the main thread. */
  agentId: string | undefined;
  model: string;
  /** The system prompt, text blocks joined with "\n". */
  system: string;
  messages: RequestMessage[];
  tools: RequestTool[];
  toolNames: string[];
  stream: boolean;
  /** The raw parsed body. */
  body: Record<string, unknown>;
}

/** The policy answers with the next assistant turn; an empty list becomes a single "ok" text. */
export type Policy = (req: ModelRequest) => AssistantBlock[] | Promise<AssistantBlock[]>;

export interface ModelServerOptions {
  /** JSONL log of every request and response (compact). */
  logFile?: string;
  /** Ask the policy even for requests that carry no tools (default: answer those with `toolLessText`). */
  askPolicyWithoutTools?: boolean;
  /** Text for tool-less requests (default "Test session"). */
  toolLessText?: string;
  /** Port to listen on (default 0: any free port). */
  port?: number;
}

export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  /** Parsed request for /v1/messages; undefined for other paths. */
  request?: ModelRequest;
  /** The blocks answered (for /v1/messages), or the status for others. */
  response?: AssistantBlock[];
  /** The token usage the answer reported (input and final output tokens), as the host will record it. */
  usage?: { input: number; output: number };
  status: number;
}

export interface ModelServer {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
}

// ---------------------------------------------------------------------------------------------
// Helpers exported for policies and tests

export const text = (t: string): TextBlock => ({ type: "text", text: t });
export const toolUse = (name: string, input: unknown, id?: string): ToolUseBlock =>
  id === undefined ? { type: "tool_use", name, input } : { type: "tool_use", name, input, id };

/** Text of a message's content (text blocks joined, tool_result contents included). */
export function contentText(content: string | RequestContentBlock[] | unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const b of content as RequestContentBlock[]) {
    if (b.type === "text" && typeof b.text === "string") parts.push(b.text);
    else if (b.type === "tool_result") parts.push(contentText(b.content));
  }
  return parts.join("\n");
}

/** The last message of the request (usually the user/tool_result turn the policy answers). */
export function lastMessage(req: ModelRequest): RequestMessage | undefined {
  return req.messages[req.messages.length - 1];
}

/** All tool_result blocks in the request's last user message. */
export function lastToolResults(req: ModelRequest): RequestContentBlock[] {
  const m = lastMessage(req);
  if (!m || m.role !== "user" || typeof m.content === "string") return [];
  return m.content.filter((b) => b.type === "tool_result");
}

/** Number of assistant turns already in the conversation. */
export function assistantTurns(req: ModelRequest): number {
  return req.messages.filter((m) => m.role === "assistant").length;
}

// ---------------------------------------------------------------------------------------------

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function systemText(system: unknown): string {
  if (typeof system === "string") return system;
  if (Array.isArray(system)) {
    return system
      .map((b: unknown) =>
        b && typeof b === "object" && typeof (b as { text?: unknown }).text === "string"
          ? (b as { text: string }).text
          : "",
      )
      .join("\n");
  }
  return "";
}

function headerString(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

let idCounter = 0;
function newId(prefix: string): string {
  idCounter += 1;
  return `${prefix}_${Date.now().toString(36)}${idCounter.toString(36).padStart(6, "0")}`;
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…[+${s.length - n}]`;
}

/** Compact rendering of a message for the log. */
function compactMessage(m: RequestMessage): unknown {
  if (typeof m.content === "string") return { role: m.role, text: clip(m.content, 4000) };
  return {
    role: m.role,
    content: m.content.map((b) => {
      if (b.type === "text") return { text: clip(b.text ?? "", 4000) };
      if (b.type === "tool_use") return { tool_use: b.name, id: b.id, input: b.input };
      if (b.type === "tool_result")
        return {
          tool_result: b.tool_use_id,
          is_error: b.is_error,
          content: clip(contentText(b.content), 4000),
        };
      return { type: b.type };
    }),
  };
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function normalizeBlocks(blocks: AssistantBlock[]): AssistantBlock[] {
  return (blocks.length ? blocks : [text("ok")]).map((b) =>
    b.type === "tool_use" ? { ...b, id: b.id ?? newId("toolu") } : b,
  );
}

function estimateTokens(body: string): number {
  return Math.max(1, Math.ceil(body.length / 4));
}

/** Writes the answer as server-sent events; returns the output tokens it reported. */
function writeStream(res: ServerResponse, model: string, blocks: AssistantBlock[], inTokens: number): number {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "request-id": newId("req"),
  });
  const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  sse(res, "message_start", {
    type: "message_start",
    message: {
      id: newId("msg"),
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  });
  let outTokens = 1;
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } });
      outTokens += estimateTokens(b.text);
    } else {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
      });
      const json = JSON.stringify(b.input ?? {});
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: json },
      });
      outTokens += estimateTokens(json);
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  sse(res, "message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outTokens },
  });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
  return outTokens;
}

function writeJsonMessage(res: ServerResponse, model: string, blocks: AssistantBlock[], inTokens: number): number {
  const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  const body = {
    id: newId("msg"),
    type: "message",
    role: "assistant",
    model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: inTokens, output_tokens: 10 },
  };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
  return body.usage.output_tokens;
}

export async function startModelServer(policy: Policy, opts: ModelServerOptions = {}): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  let messagesIndex = 0;
  const { logFile } = opts;
  if (logFile) mkdirSync(dirname(logFile), { recursive: true });
  const log = (entry: Record<string, unknown>): void => {
    if (!logFile) return;
    try {
      appendFileSync(logFile, `${JSON.stringify({ t: new Date().toISOString(), ...entry })}\n`);
    } catch {
      /* logging must never break the server */
    }
  };

  const server = createServer((req, res) => {
    void (async () => {
      const method = req.method ?? "GET";
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const path = url.pathname;
      const raw = await readBody(req);
      const rec: RecordedRequest = { index: requests.length, method, path, status: 200 };
      requests.push(rec);

      if (method === "POST" && path === "/v1/messages/count_tokens") {
        const n = estimateTokens(raw);
        log({ i: rec.index, method, path: req.url, input_tokens: n });
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: n }));
        return;
      }

      if (method === "POST" && path === "/v1/messages") {
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          rec.status = 400;
          log({ i: rec.index, method, path: req.url, status: 400, error: "bad json" });
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "bad json" } }));
          return;
        }
        const tools = Array.isArray(body.tools) ? (body.tools as RequestTool[]) : [];
        const mreq: ModelRequest = {
          index: messagesIndex++,
          path: req.url ?? path,
          headers: req.headers,
          agentId: headerString(req.headers["x-claude-code-agent-id"]),
          model: typeof body.model === "string" ? body.model : "claude-test",
          system: systemText(body.system),
          messages: Array.isArray(body.messages) ? (body.messages as RequestMessage[]) : [],
          tools,
          toolNames: tools.map((t) => t.name),
          stream: body.stream === true,
          body,
        };
        rec.request = mreq;
        let blocks: AssistantBlock[];
        let policyError: string | undefined;
        try {
          if (tools.length === 0 && !opts.askPolicyWithoutTools) blocks = [text(opts.toolLessText ?? "Test session")];
          else blocks = await policy(mreq);
        } catch (e) {
          policyError = e instanceof Error ? e.stack ?? e.message : String(e);
          blocks = [text(`[model-server policy error] ${policyError.split("\n")[0]}`)];
        }
        const out = normalizeBlocks(blocks);
        rec.response = out;
        const inTokens = estimateTokens(raw);
        const outTokens = mreq.stream ? writeStream(res, mreq.model, out, inTokens) : writeJsonMessage(res, mreq.model, out, inTokens);
        rec.usage = { input: inTokens, output: outTokens };
        log({
          i: rec.index,
          n: mreq.index,
          path: mreq.path,
          agent: mreq.agentId ?? null,
          model: mreq.model,
          stream: mreq.stream,
          system: clip(mreq.system, 300),
          tools: mreq.toolNames,
          nMessages: mreq.messages.length,
          last: mreq.messages.length ? compactMessage(mreq.messages[mreq.messages.length - 1]!) : null,
          response: out,
          usage: rec.usage,
          ...(policyError ? { policyError } : {}),
        });
        return;
      }

      rec.status = 404;
      log({ i: rec.index, method, path: req.url, status: 404, body: clip(raw, 500) });
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no route ${method} ${path}` } }));
    })().catch((e: unknown) => {
      log({ error: e instanceof Error ? e.stack : String(e) });
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: "model-server crashed" } }));
    });
  });

  return { ...(await listenOnLoopback(server, opts.port)), requests };
}

/** Starts `server` on 127.0.0.1 (`port`, or one the system picks): its url and port, and a close that drops open connections. */
export async function listenOnLoopback(server: Server, port = 0): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
