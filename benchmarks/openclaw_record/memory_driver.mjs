// Node driver for memory.py: runs OpenClaw 2026.4.29's own memory indexer, `openclaw memory search --json`
// (its `runMemorySearch`) and the `memory_search` / `memory_get` agent tools (through its plugin loader,
// `resolvePluginTools`) in one process, on the config in $OPENCLAW_STATE_DIR/openclaw.json.
// Usage: node memory_driver.mjs job.json out.json
//   job: {openclawDir, runtimeModule, agentId,
//         steps: [{op: "index"|"status"|"scope"|"keywords"|"cli_search"|"tool", ...}]}
//   out: {steps: [result per step]}
import crypto from "node:crypto";
import fs from "node:fs";

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf-8"));
const { OpenClawDist, captureRuntime, errorRecord } = await import(job.runtimeModule);
const dist = new OpenClawDist(job.openclawDir);
const cli = await dist.load(dist.chunk("cli.runtime"));
const defaultRuntime = await dist.imported("cli.runtime", "defaultRuntime");
const getMemorySearchManager = await dist.imported("cli.runtime", "getMemorySearchManager");
const getRuntimeConfig = await dist.imported("cli.runtime", "getRuntimeConfig");
const normalizeExtraMemoryPaths = await dist.imported("cli.runtime", "normalizeExtraMemoryPaths");
const resolvePluginTools = await dist.imported("openclaw-tools", "resolvePluginTools");
const extractKeywords = await dist.imported("manager", "extractKeywords");
const output = captureRuntime(defaultRuntime);
const agentId = job.agentId ?? "main";
const toolSets = new Map();

function sha256(text) {
  return crypto.createHash("sha256").update(text).digest("hex");
}

async function withManager(purpose, fn) {
  const { manager, error } = await getMemorySearchManager({ cfg: getRuntimeConfig(), agentId, purpose });
  if (!manager) throw new Error(`no memory manager: ${error}`);
  try {
    return await fn(manager);
  } finally {
    await manager.close?.();
  }
}

function tools(sessionKey) {
  if (!toolSets.has(sessionKey)) {
    const config = getRuntimeConfig();
    const list = resolvePluginTools({ context: { config, sessionKey, agentId } });
    toolSets.set(sessionKey, new Map(list.map((tool) => [tool.name, tool])));
  }
  return toolSets.get(sessionKey);
}

// The same JSON OpenClaw hashes into meta.scopeHash (resolveConfiguredScopeHash in manager-sync-ops).
function scopeJson(manager) {
  const { extraPaths, multimodal } = manager.settings;
  return JSON.stringify({
    extraPaths: normalizeExtraMemoryPaths(manager.workspaceDir, extraPaths).map((p) => p.replace(/\\/g, "/")).toSorted(),
    multimodal: { enabled: multimodal.enabled, modalities: [...multimodal.modalities].toSorted(), maxFileBytes: multimodal.maxFileBytes },
  });
}

const ops = {
  async index(step) {
    await cli.runMemoryIndex({ force: Boolean(step.force) });
    return output.take();
  },
  async status() {
    return await withManager("status", async (manager) => {
      const s = manager.status();
      return { files: s.files, chunks: s.chunks, dirty: s.dirty, workspaceDir: s.workspaceDir, provider: s.provider,
        model: s.model ?? null, requestedProvider: s.requestedProvider, sources: s.sources, extraPaths: s.extraPaths,
        sourceCounts: s.sourceCounts, fts: s.fts, searchMode: s.custom?.searchMode };
    });
  },
  async scope() {
    return await withManager("status", async (manager) => {
      const json = scopeJson(manager);
      return { workspaceDir: manager.workspaceDir, extraPathsConfig: manager.settings.extraPaths, json, sha256: sha256(json) };
    });
  },
  async keywords(step) {
    return step.queries.map((query) => ({
      unicode61: extractKeywords(query.trim(), { ftsTokenizer: "unicode61" }),
      trigram: extractKeywords(query.trim(), { ftsTokenizer: "trigram" }),
    }));
  },
  async cli_search(step) {
    await cli.runMemorySearch(step.query, { json: true, maxResults: step.maxResults, minScore: step.minScore });
    const out = output.take();
    return out.json.length === 1 ? { text: out.json[0] } : { log: out.log, error: out.error };
  },
  async tool(step) {
    const tool = tools(step.sessionKey ?? `agent:${agentId}:main`).get(step.name);
    if (!tool) throw new Error(`plugin loader gave no ${step.name} tool`);
    try {
      const result = await tool.execute(`call-${step.name}`, step.params);
      const text = result.content[0].text.replace(/("searchMs": )\d+/, "$10");
      return { text };
    } catch (err) {
      return { thrown: errorRecord(err) };
    }
  },
};

const results = [];
for (const [index, step] of job.steps.entries()) {
  const started = Date.now();
  try {
    results.push(await ops[step.op](step));
  } catch (err) {
    results.push({ failed: errorRecord(err) });
  }
  console.error(`[driver] step ${index} ${step.op} ${step.name ?? ""} ${Date.now() - started} ms`);
}
fs.writeFileSync(process.argv[3], JSON.stringify({ steps: results }));
process.exit(0);
