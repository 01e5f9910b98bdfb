// Pre-compaction memory flush: OpenClaw's own runMemoryFlushIfNeeded (patched to be exported) over generated
// state dirs, each on one edge of one rule. The flush turn itself is replaced by a recorder.
import fs from "node:fs";
import path from "node:path";
import { extra, load, NOW_MS, placeholders, scratch, sha256Bytes } from "./sessions.common.mjs";

const PROMPT = "hello world!";
const CATALOG = { acme: { baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "acme-large", contextWindow: 200000 }] } };

function baseConfig(extra = {}) {
  const defaults = { workspace: "<ws>", userTimezone: "UTC", ...(extra.defaults ?? {}) };
  const cfg = {
    agents: { defaults, list: extra.list ?? [{ id: "main", default: true }] },
    models: { providers: extra.providers ?? CATALOG },
  };
  return cfg;
}

const assistant = (usage, text = "ok") => ({
  type: "message", id: "a1", parentId: "u1", timestamp: "2026-04-29T09:59:00.000Z",
  message: { role: "assistant", content: [{ type: "text", text }], usage, stopReason: "stop", timestamp: NOW_MS - 60000 },
});
const user = (text) => ({
  type: "message", id: "u1", parentId: null, timestamp: "2026-04-29T09:58:00.000Z",
  message: { role: "user", content: text, timestamp: NOW_MS - 120000 },
});
const header = { type: "session", version: 3, id: "s1", timestamp: "2026-04-29T09:00:00.000Z", cwd: "/ws" };

/** The transcript bytes of a spec: records one per line, an optional pad record first to reach `padTo` bytes. */
export function transcriptBytes(spec) {
  const body = spec.records.map((r) => `${JSON.stringify(r)}\n`).join("");
  if (spec.padTo === undefined) return Buffer.from(body, "utf8");
  const emptyPad = `${JSON.stringify({ type: "custom", customType: "memtui-pad", data: "" })}\n`;
  const fill = spec.padTo - Buffer.byteLength(body) - Buffer.byteLength(emptyPad);
  if (fill < 0) throw new Error("padTo too small");
  const pad = `${JSON.stringify({ type: "custom", customType: "memtui-pad", data: "x".repeat(fill) })}\n`;
  return Buffer.concat([Buffer.from(pad, "utf8"), Buffer.from(body, "utf8")]);
}

const usageTranscript = (usage, extraRecords = []) => ({ records: [header, user("hi"), assistant(usage), ...extraRecords] });
const usage = (input, output = 0, cacheRead = 0, cacheWrite = 0) => ({
  input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite,
});
const entry = (fields = {}) => ({ sessionId: "s1", updatedAt: NOW_MS - 1000, modelProvider: "acme", model: "acme-large", ...fields });

function cases() {
  const out = [];
  const add = (name, rule, spec) => out.push({ name, rule, sessionKey: "agent:main:main", prompt: PROMPT, ...spec });
  // Context window (§7.2)
  add("window-catalog", "context-window", { config: baseConfig(), entry: entry({ totalTokens: 175990, totalTokensFresh: true }) });
  add("window-defaults-override", "context-window", {
    config: baseConfig({ defaults: { contextTokens: 100000 } }), entry: entry({ totalTokens: 90000, totalTokensFresh: true }) });
  add("window-agent-list-ignored", "context-window", {
    config: baseConfig({ list: [{ id: "main", default: true, contextTokens: 100000 }] }),
    entry: entry({ totalTokens: 90000, totalTokensFresh: true }) });
  add("window-session-entry-ignored", "context-window", {
    config: baseConfig(), entry: entry({ totalTokens: 90000, totalTokensFresh: true, contextTokens: 100000 }) });
  add("window-unknown-model-fallback", "context-window", {
    config: baseConfig(), entry: entry({ model: "mystery-model", totalTokens: 176000, totalTokensFresh: true }) });
  add("window-provider-level", "context-window", {
    config: baseConfig({ providers: { acme: { baseUrl: "http://127.0.0.1:9/v1", contextWindow: 50000, models: [] } } }),
    entry: entry({ totalTokens: 26000, totalTokensFresh: true }) });
  // Threshold ±1 (fresh persisted count, no transcript read below the window)
  for (const [label, total] of [["minus1", 175996], ["exact", 175997], ["plus1", 175998]]) {
    add(`threshold-${label}`, "threshold-gate", { config: baseConfig(), entry: entry({ totalTokens: total, totalTokensFresh: true }),
      transcript: usageTranscript(usage(10)) });
  }
  add("reserve-and-soft-from-defaults", "threshold-gate", {
    config: baseConfig({ defaults: { compaction: { reserveTokensFloor: 30000, memoryFlush: { softThresholdTokens: 1000 } } } }),
    entry: entry({ totalTokens: 169000, totalTokensFresh: true }) });
  add("reserve-from-agent-entry-ignored", "threshold-gate", {
    config: baseConfig({ list: [{ id: "main", default: true, compaction: { reserveTokensFloor: 50000 } }] }),
    entry: entry({ totalTokens: 150000, totalTokensFresh: true }) });
  // Threshold ≤ 0: no token gate, the size gate still runs
  add("threshold-zero-tokens", "threshold-nonpositive", {
    config: baseConfig({ defaults: { contextTokens: 24000 } }), entry: entry({ totalTokens: 500000, totalTokensFresh: true }) });
  add("threshold-negative-tokens", "threshold-nonpositive", {
    config: baseConfig({ defaults: { contextTokens: 23999 } }), entry: entry({ totalTokens: 500000, totalTokensFresh: true }) });
  add("threshold-zero-force-bytes", "threshold-nonpositive", {
    config: baseConfig({ defaults: { contextTokens: 24000 } }), entry: entry({ totalTokens: 10, totalTokensFresh: true }),
    transcript: { records: [header], padTo: 2097152 } });
  // totalTokensFresh
  add("fresh-missing-transcript-usage", "fresh-persisted", {
    config: baseConfig(), entry: entry({ totalTokens: 180000 }), transcript: usageTranscript(usage(1000, 100)) });
  add("fresh-false-transcript-usage", "fresh-persisted", {
    config: baseConfig(), entry: entry({ totalTokens: 180000, totalTokensFresh: false }),
    transcript: usageTranscript(usage(1000, 100)) });
  add("fresh-true-transcript-usage", "fresh-persisted", {
    config: baseConfig(), entry: entry({ totalTokens: 180000, totalTokensFresh: true }),
    transcript: usageTranscript(usage(1000, 100)) });
  add("fresh-missing-no-usage", "fresh-persisted", {
    config: baseConfig(), entry: entry({ totalTokens: 180000 }), transcript: { records: [header, user("hi")] } });
  add("fresh-false-no-usage", "fresh-persisted", {
    config: baseConfig(), entry: entry({ totalTokens: 180000, totalTokensFresh: false }),
    transcript: { records: [header, user("hi")] } });
  add("fresh-missing-no-transcript", "fresh-persisted", { config: baseConfig(), entry: entry({ totalTokens: 180000 }) });
  add("fresh-false-bigger-transcript", "fresh-persisted", {
    config: baseConfig(), entry: entry({ totalTokens: 1000, totalTokensFresh: false }),
    transcript: usageTranscript(usage(170000, 9000)) });
  // The 8,192-token transcript-read window (fresh persisted count + pending prompt)
  add("window-far-below-output-not-read", "transcript-read-window", {
    config: baseConfig(), entry: entry({ totalTokens: 165000, totalTokensFresh: true }),
    transcript: usageTranscript(usage(1000, 12000)) });
  add("window-edge-minus1-not-read", "transcript-read-window", {
    config: baseConfig(), entry: entry({ totalTokens: 167804, totalTokensFresh: true }),
    transcript: usageTranscript(usage(1000, 12000)) });
  add("window-edge-exact-read", "transcript-read-window", {
    config: baseConfig(), entry: entry({ totalTokens: 167805, totalTokensFresh: true }),
    transcript: usageTranscript(usage(1000, 12000)) });
  add("window-no-prompt-not-read", "transcript-read-window", {
    config: baseConfig(), entry: entry({ totalTokens: 170000, totalTokensFresh: true }), prompt: "",
    transcript: usageTranscript(usage(1000, 12000)) });
  add("window-transcript-prompt-larger", "transcript-read-window", {
    config: baseConfig(), entry: entry({ totalTokens: 170000, totalTokensFresh: true }),
    transcript: usageTranscript(usage(173000, 500)) });
  add("window-long-prompt-estimate", "transcript-read-window", {
    config: baseConfig(), entry: entry({ totalTokens: 160000, totalTokensFresh: true }),
    prompt: "x".repeat(32003), transcript: usageTranscript(usage(1000, 12)) });
  // normalizeUsage shapes (read because the persisted count is not fresh)
  const shapes = {
    "pi": usage(150000, 20000, 5000, 1000),
    "camel-prompt-completion": { promptTokens: 176000, completionTokens: 5 },
    "snake-prompt-completion": { prompt_tokens: 175000, completion_tokens: 993 },
    "llama-prompt-n": { prompt_n: 175500, predicted_n: 500 },
    "llama-timings": { timings: { prompt_n: 175000, predicted_n: 1000 } },
    "openai-cached-tokens": { prompt_tokens: 180000, cached_tokens: 50000, completion_tokens: 10 },
    "openai-details-cached": { input_tokens: 176000, input_tokens_details: { cached_tokens: 6000 }, output_tokens: 1 },
    "anthropic-cache": { input_tokens: 1000, cache_read_input_tokens: 170000, cache_creation_input_tokens: 5000, output_tokens: 1 },
    "total-only": { totalTokens: 190000 },
    "output-only": { output: 190000 },
  };
  for (const [label, shape] of Object.entries(shapes)) {
    add(`usage-${label}`, "usage-shapes", { config: baseConfig(), entry: entry({ totalTokens: 10, totalTokensFresh: false }),
      transcript: usageTranscript(shape) });
  }
  add("usage-top-level", "usage-shapes", { config: baseConfig(), entry: entry({ totalTokens: 10, totalTokensFresh: false }),
    transcript: { records: [header, { type: "message", id: "a9", usage: { input: 177000, output: 3 } }] } });
  add("usage-last-nonzero-wins", "usage-shapes", { config: baseConfig(), entry: entry({ totalTokens: 10, totalTokensFresh: false }),
    transcript: usageTranscript(usage(177000, 3), [assistant(usage(0, 0))]) });
  // Transcript size force flush, 2 MiB ±1
  for (const [label, size] of [["minus1", 2097151], ["exact", 2097152], ["plus1", 2097153]]) {
    add(`force-bytes-${label}`, "force-flush-bytes", { config: baseConfig(), entry: entry({ totalTokens: 1000, totalTokensFresh: true }),
      transcript: { records: [header], padTo: size } });
  }
  add("force-bytes-string-size", "force-flush-bytes", {
    config: baseConfig({ defaults: { compaction: { memoryFlush: { forceFlushTranscriptBytes: "1mb" } } } }),
    entry: entry({ totalTokens: 1000, totalTokensFresh: true }), transcript: { records: [header], padTo: 1048576 } });
  add("force-bytes-disabled", "force-flush-bytes", {
    config: baseConfig({ defaults: { compaction: { memoryFlush: { forceFlushTranscriptBytes: 0 } } } }),
    entry: entry({ totalTokens: 1000, totalTokensFresh: true }), transcript: { records: [header], padTo: 2097152 } });
  // Once per compaction cycle
  add("cycle-already-flushed", "once-per-cycle", { config: baseConfig(),
    entry: entry({ totalTokens: 180000, totalTokensFresh: true, compactionCount: 2, memoryFlushCompactionCount: 2 }) });
  add("cycle-missing-count-zero", "once-per-cycle", { config: baseConfig(),
    entry: entry({ totalTokens: 180000, totalTokensFresh: true, memoryFlushCompactionCount: 0 }) });
  add("cycle-new-cycle", "once-per-cycle", { config: baseConfig(),
    entry: entry({ totalTokens: 180000, totalTokensFresh: true, compactionCount: 3, memoryFlushCompactionCount: 2 }) });
  add("cycle-already-flushed-bytes", "once-per-cycle", { config: baseConfig(),
    entry: entry({ totalTokens: 10, totalTokensFresh: true, compactionCount: 1, memoryFlushCompactionCount: 1 }),
    transcript: { records: [header], padTo: 2097152 } });
  // Flush disabled, sandboxed workspace
  add("disabled", "disabled", { config: baseConfig({ defaults: { compaction: { memoryFlush: { enabled: false } } } }),
    entry: entry({ totalTokens: 180000, totalTokensFresh: true }) });
  add("sandbox-ro", "sandbox", { config: baseConfig({ defaults: { sandbox: { mode: "all", workspaceAccess: "ro" } } }),
    entry: entry({ totalTokens: 180000, totalTokensFresh: true }) });
  add("sandbox-rw", "sandbox", { config: baseConfig({ defaults: { sandbox: { mode: "all", workspaceAccess: "rw" } } }),
    entry: entry({ totalTokens: 180000, totalTokensFresh: true }) });
  add("sandbox-non-main-on-main", "sandbox", {
    config: baseConfig({ defaults: { sandbox: { mode: "non-main", workspaceAccess: "none" } } }),
    entry: entry({ totalTokens: 180000, totalTokensFresh: true }) });
  out.push({ name: "sandbox-non-main-on-group", rule: "sandbox", sessionKey: "agent:main:telegram:group:42", prompt: PROMPT,
    config: baseConfig({ defaults: { sandbox: { mode: "non-main", workspaceAccess: "none" } } }),
    entry: entry({ totalTokens: 180000, totalTokensFresh: true }) });
  return out;
}

function parseCheck(line) {
  const fields = {};
  for (const match of line.matchAll(/(\w+)=(\S+)/g)) {
    const raw = match[2];
    fields[match[1]] = raw === "undefined" ? null : raw === "true" ? true : raw === "false" ? false
      : /^-?\d+$/.test(raw) ? Number(raw) : raw;
  }
  return fields;
}

/** Run every flush case; returns the recording. */
export async function recordFlush(copy) {
  const runner = await load(copy, "agent-runner.runtime-Bf-1Z53T.js");
  const memoryCore = await load(copy, "extensions/memory-core/index.js");
  const memoryState = await load(copy, "memory-state-C4P0nzNL.js");
  const logger = await load(copy, "logger-r45-Bhn_.js");
  memoryState.m(memoryCore.buildMemoryFlushPlan);
  logger.S(true);
  const runMemoryFlushIfNeeded = extra(runner, "runMemoryFlushIfNeeded");
  const deps = extra(runner, "memoryDeps");
  const recorded = [];
  for (const spec of cases()) {
    const root = scratch(`flush-${spec.name}`);
    const ws = path.join(root, "workspace");
    const state = path.join(root, "state");
    const sessionsDir = path.join(state, "agents", "main", "sessions");
    fs.mkdirSync(ws, { recursive: true });
    fs.mkdirSync(sessionsDir, { recursive: true });
    const map = [[ws, "<ws>"], [state, "<state>"]];
    const cfg = JSON.parse(JSON.stringify(spec.config).split("<ws>").join(ws));
    const storePath = path.join(sessionsDir, "sessions.json");
    fs.writeFileSync(storePath, `${JSON.stringify({ [spec.sessionKey]: spec.entry }, null, 2)}\n`);
    let transcriptSha;
    let transcriptSize;
    if (spec.transcript) {
      const bytes = transcriptBytes(spec.transcript);
      fs.writeFileSync(path.join(sessionsDir, `${spec.entry.sessionId}.jsonl`), bytes);
      transcriptSha = sha256Bytes(bytes);
      transcriptSize = bytes.length;
    }
    process.env.OPENCLAW_STATE_DIR = state;
    const flushes = [];
    const patches = [];
    deps.runWithModelFallback = async (opts) => {
      flushes.push({ provider: opts.provider, model: opts.model });
      return {};
    };
    deps.registerAgentRunContext = () => {};
    deps.now = () => NOW_MS;
    deps.updateSessionStoreEntry = async ({ update }) => {
      const patch = await update();
      patches.push(patch);
      return { ...spec.entry, ...patch };
    };
    const logs = [];
    const realLog = console.log;
    console.log = (...args) => logs.push(args.join(" "));
    let returned;
    try {
      const sessionStore = { [spec.sessionKey]: { ...spec.entry } };
      returned = await runMemoryFlushIfNeeded({
        cfg,
        followupRun: {
          prompt: spec.prompt,
          run: { provider: spec.entry.modelProvider, model: spec.entry.model, sessionId: spec.entry.sessionId,
            sessionKey: spec.sessionKey, workspaceDir: ws, agentId: "main", config: cfg },
        },
        promptForEstimate: spec.prompt,
        sessionCtx: {},
        opts: {},
        defaultModel: spec.entry.model,
        agentCfgContextTokens: cfg.agents?.defaults?.contextTokens,
        resolvedVerboseLevel: "off",
        sessionEntry: sessionStore[spec.sessionKey],
        sessionStore,
        sessionKey: spec.sessionKey,
        storePath,
        isHeartbeat: false,
        replyOperation: { setPhase() {}, updateSessionId() {}, abortSignal: undefined },
      });
    } finally {
      console.log = realLog;
    }
    const check = logs.map((l) => l.replace(/\x1b\[[0-9;]*m/g, "")).find((l) => l.startsWith("memoryFlush check:"));
    recorded.push(placeholders({
      ...spec,
      ...(spec.transcript ? { transcriptSha256: transcriptSha, transcriptBytes: transcriptSize } : {}),
      result: {
        flushed: flushes.length > 0,
        check: check ? parseCheck(check) : null,
        persistedAfter: patches,
        returnedTotalTokens: returned?.totalTokens ?? null,
        returnedTotalTokensFresh: returned?.totalTokensFresh ?? null,
      },
    }, map));
  }
  return { function: "runMemoryFlushIfNeeded", module: "src/auto-reply/reply/agent-runner-memory.ts",
    nowMs: NOW_MS, cases: recorded };
}
