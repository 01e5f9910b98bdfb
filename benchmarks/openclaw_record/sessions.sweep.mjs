// The dreaming sweep and its files: DREAMS.md diary writer, light/REM phases, the deep "dream" run
// (runShortTermDreamingPromotionIfTriggered) and rem-backfill, with a recording stand-in for the narrative
// sub-agent. File mtimes are fixed so ingestion state is reproducible.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { extra, load, NOW_MS, placeholders, scratch, writeTree } from "./sessions.common.mjs";
import { GROUNDED_NOTES } from "./sessions.notes.mjs";

const HOUR = 3600000;
const DAY = 24 * HOUR;
const NARRATIVE = "The router hummed like a kettle while the backups slept in their cold shelves.";
const DREAM_TOKEN = "__openclaw_memory_core_short_term_promotion_dream__";
const mtime = (text, daysAgo = 1) => ({ text, mtimeMs: NOW_MS - daysAgo * DAY });

const DAILY_28 = "# 2026-04-28\n\n## Gateway\n- Decided to keep the gateway on port 8080 behind the router\n- The nightly backup to S3 failed twice\n\n## Tuesday\nAlice prefers tea over coffee and wants it noted.\nShe also dislikes early meetings.\n\n1. ship the release\n2. tag v2.3.1\n\n<!-- a comment -->\nshort\n";
const DAILY_27 = "# 2026-04-27\n\n## People\n- Bob always uses the shared calendar for travel\n- Bob prefers window seats\n\n## Light Sleep\n<!-- openclaw:dreaming:light:start -->\n- Candidate: old staged line\n<!-- openclaw:dreaming:light:end -->\n\n## 网关\n- 网关配置已经更新，路由器和备份都正常\n";
const DAILY_24 = "# 2026-04-24\n\n## Gateway\n- Failover to the NAS worked after the router restart\n- Decided to keep the gateway on port 8080 behind the router\n";
const DAILY_20 = "# 2026-04-20\n\n- older than every lookback window here\n";

const dreamingConfig = (ws, dreaming) => ({
  agents: { defaults: { workspace: ws, userTimezone: "America/Los_Angeles" }, list: [{ id: "main", default: true }] },
  plugins: { entries: { "memory-core": { config: { dreaming: { enabled: true, ...dreaming } } } } },
});

function fakeSubagent(log) {
  let runs = 0;
  return {
    async run(params) {
      log.push({ call: "run", sessionKey: params.sessionKey, message: params.message, lane: params.lane,
        lightContext: params.lightContext, deliver: params.deliver, model: params.model ?? null });
      runs += 1;
      return { runId: `run-${runs}` };
    },
    async waitForRun(params) {
      log.push({ call: "waitForRun", runId: params.runId, timeoutMs: params.timeoutMs });
      return { status: "ok" };
    },
    async getSessionMessages(params) {
      log.push({ call: "getSessionMessages", sessionKey: params.sessionKey, limit: params.limit });
      return { messages: [{ role: "user", content: "prompt" }, { role: "assistant", content: [{ type: "text", text: `  ${NARRATIVE}  ` }] }] };
    },
    async deleteSession(params) {
      log.push({ call: "deleteSession", sessionKey: params.sessionKey });
      return {};
    },
  };
}

/** Placeholders for the workspace, the state dir and the workspace hash in narrative session keys. */
const pathMap = (ws, state) => [[ws, "<ws>"], [state, "<state>"],
  [createHash("sha1").update(ws).digest("hex").slice(0, 12), "<sha1(ws)[:12]>"]];

const logger = (lines) => ({ info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`),
  error: (m) => lines.push(`error ${m}`), debug: () => {} });

/** Ingestion state of a file the sweep itself wrote (inline mode) carries the wall-clock mtime: masked. */
const maskRunMtimes = (text) => text.replace(/"mtimeMs": (\d+)/g, (m, ms) => (Number(ms) > NOW_MS ? '"mtimeMs": "<run>"' : m));

/** Every file under `root` (relative path → text), symlinks and the events log excluded. */
function snapshot(root) {
  const out = {};
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out[path.relative(root, full)] = maskRunMtimes(fs.readFileSync(full, "utf8"));
    }
  };
  if (fs.existsSync(root)) walk(root);
  return out;
}

function diaryCases() {
  return [
    { name: "new-file", existing: null, tz: "America/Los_Angeles" },
    { name: "empty-file", existing: "", tz: "UTC" },
    { name: "both-markers", tz: "Asia/Kolkata",
      existing: "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 28, 2026 at 3:00 AM PDT*\n\nEarlier entry.\n\n<!-- openclaw:dreaming:diary:end -->\n" },
    { name: "start-marker-only", existing: "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\nloose text\n", tz: "Europe/London" },
    { name: "other-content", existing: "My own notes about dreams.\n", tz: "Australia/Adelaide" },
    { name: "lowercase-dreams-md", file: "dreams.md", existing: "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n<!-- openclaw:dreaming:diary:end -->\n", tz: "UTC" },
    { name: "no-timezone", existing: null },
  ];
}

const DATE_CASES = [
  [NOW_MS, "America/Los_Angeles"], [NOW_MS, "UTC"], [Date.UTC(2026, 0, 1, 0, 5), "UTC"], [Date.UTC(2026, 0, 1, 12, 0), "UTC"],
  [Date.UTC(2026, 2, 8, 10, 30), "America/New_York"], [Date.UTC(2026, 9, 25, 1, 59), "Europe/Berlin"],
  [NOW_MS, "Asia/Kolkata"], [NOW_MS, "Australia/Adelaide"], [NOW_MS, "Pacific/Chatham"], [NOW_MS, "America/Sao_Paulo"],
  [NOW_MS, "Asia/Tokyo"], [NOW_MS, "Africa/Cairo"], [NOW_MS, "Etc/GMT+5"], [NOW_MS, undefined],
];

async function recordDiary(phases) {
  const append = extra(phases, "appendNarrativeEntry");
  const formatDate = extra(phases, "formatNarrativeDate");
  const buildPrompt = extra(phases, "buildNarrativePrompt");
  const entries = [];
  for (const spec of diaryCases()) {
    const ws = scratch(`diary-${spec.name}`);
    const name = spec.file ?? "DREAMS.md";
    if (spec.existing !== null) fs.writeFileSync(path.join(ws, name), spec.existing);
    await append({ workspaceDir: ws, narrative: NARRATIVE, nowMs: NOW_MS, timezone: spec.tz });
    await append({ workspaceDir: ws, narrative: "Second entry.", nowMs: NOW_MS + HOUR, timezone: spec.tz });
    entries.push({ ...spec, result: snapshot(ws) });
  }
  const backfillWs = scratch("diary-backfill");
  fs.writeFileSync(path.join(backfillWs, "DREAMS.md"), "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 28, 2026 at 3:00 AM PDT*\n\nA real entry.\n\n---\n\n*April 28, 2026 at 3:00 AM PDT*\n\nA real entry.\n\n<!-- openclaw:dreaming:diary:end -->\n");
  const steps = [];
  const snap = () => fs.readFileSync(path.join(backfillWs, "DREAMS.md"), "utf8");
  const write = async (list) => phases.l({ workspaceDir: backfillWs, entries: list, timezone: "UTC" });
  steps.push({ op: "write", output: await write([
    { isoDay: "2026-04-20", sourcePath: "/src/2026-04-20.md", bodyLines: ["What happened", "- a line  ", "", "More"] },
    { isoDay: "2026-04-21", bodyLines: ["Only body"] },
    { isoDay: "not-a-day", bodyLines: [] }]), text: snap() });
  steps.push({ op: "write", output: await write([{ isoDay: "2026-04-22", sourcePath: "/src/2026-04-22.md", bodyLines: ["Replaced"] }]), text: snap() });
  steps.push({ op: "dedupe", output: await phases.a({ workspaceDir: backfillWs }), text: snap() });
  steps.push({ op: "remove", output: await phases.s({ workspaceDir: backfillWs }), text: snap() });
  const prompts = [
    { phase: "light", snippets: ["one", "two"] },
    { phase: "rem", snippets: Array.from({ length: 14 }, (_, i) => `s${i}`), themes: Array.from({ length: 8 }, (_, i) => `t${i}`) },
    { phase: "deep", snippets: [], promotions: Array.from({ length: 7 }, (_, i) => `p${i}`) },
  ].map((data) => ({ data, prompt: buildPrompt(data) }));
  return {
    append: entries,
    dates: DATE_CASES.map(([ms, tz]) => ({ nowMs: ms, timezone: tz ?? null, text: formatDate(ms, tz) })),
    backfill: steps.map((s) => placeholders(s, [[backfillWs, "<ws>"]])),
    prompts,
  };
}

async function recordPhases(phases, stp) {
  const out = [];
  const variants = [
    { name: "separate-no-narrative", dreaming: {} },
    { name: "inline", dreaming: { storage: { mode: "inline" } } },
    { name: "both-with-narrative", dreaming: { storage: { mode: "both" } }, narrative: true },
    { name: "rem-strict", dreaming: { phases: { rem: { minPatternStrength: 1, limit: 2 }, light: { limit: 2, lookbackDays: 1 } } } },
    { name: "light-disabled", dreaming: { phases: { light: { enabled: false } } } },
  ];
  for (const variant of variants) {
    const root = scratch(`phases-${variant.name}`);
    const ws = path.join(root, "workspace");
    const state = path.join(root, "state");
    fs.mkdirSync(ws, { recursive: true });
    fs.mkdirSync(state, { recursive: true });
    process.env.OPENCLAW_STATE_DIR = state;
    const tree = { "memory/2026-04-28.md": mtime(DAILY_28, 1), "memory/2026-04-27.md": mtime(DAILY_27, 2),
      "memory/2026-04-24.md": mtime(DAILY_24, 5), "memory/2026-04-20.md": mtime(DAILY_20, 9),
      "memory/2026-04-28-slug.md": mtime("# slug\n\n- slug files are not daily notes\n", 1) };
    writeTree(ws, tree);
    const seed = [{ query: "router gateway", nowMs: NOW_MS - 2 * HOUR, timezone: "UTC",
      results: [{ path: "memory/2026-04-24.md", startLine: 3, endLine: 4, score: 0.8, source: "memory",
        snippet: "Gateway: Failover to the NAS worked after the router restart; Decided to keep the gateway on port 8080 behind the router" }] }];
    for (const recall of seed) await stp.l({ workspaceDir: ws, ...recall });
    const cfg = dreamingConfig(ws, variant.dreaming);
    const log = [];
    const lines = [];
    await phases.r({ workspaceDir: ws, cfg, pluginConfig: cfg.plugins.entries["memory-core"].config, logger: logger(lines),
      subagent: variant.narrative ? fakeSubagent(log) : undefined, detachNarratives: false, nowMs: NOW_MS });
    const files = snapshot(ws);
    delete files["memory/.dreams/events.jsonl"];
    out.push(placeholders({ ...variant, tree, seed, config: cfg, files, subagent: log, logs: lines }, pathMap(ws, state)));
  }
  return out;
}

async function recordDream(dreamingMod, copy) {
  const run = extra(dreamingMod, "runShortTermDreamingPromotionIfTriggered");
  const stp = await load(copy, "short-term-promotion-BCSgM8ok.js");
  const out = [];
  for (const variant of [{ name: "promotes", minScore: 0.5, narrative: true }, { name: "nothing-ranked", minScore: 0.99 },
    { name: "disabled", enabled: false }]) {
    const root = scratch(`dream-${variant.name}`);
    const ws = path.join(root, "workspace");
    const state = path.join(root, "state");
    fs.mkdirSync(ws, { recursive: true });
    fs.mkdirSync(state, { recursive: true });
    process.env.OPENCLAW_STATE_DIR = state;
    const tree = { "memory/2026-04-28.md": mtime(DAILY_28, 1), "memory/2026-04-27.md": mtime(DAILY_27, 2),
      "MEMORY.md": "# Long-Term Memory\n\n- earlier fact\n" };
    writeTree(ws, tree);
    const seed = [3, 2, 1].map((days, i) => ({ query: `tea question ${i}`, nowMs: NOW_MS - days * DAY, timezone: "UTC",
      results: [{ path: "memory/2026-04-28.md", startLine: 8, endLine: 9, score: 0.9, source: "memory",
        snippet: "Alice prefers tea over coffee and wants it noted. She also dislikes early meetings." }] }));
    for (const recall of seed) await stp.l({ workspaceDir: ws, ...recall });
    const cfg = dreamingConfig(ws, { enabled: variant.enabled ?? true, phases: { deep: { minScore: variant.minScore ?? 0.8,
      minUniqueQueries: 2 } } });
    const pluginConfig = cfg.plugins.entries["memory-core"].config;
    const config = dreamingMod.n({ pluginConfig, cfg });
    const log = [];
    const lines = [];
    const result = await run({ cleanedBody: DREAM_TOKEN, trigger: "heartbeat", config, cfg, logger: logger(lines),
      subagent: variant.narrative ? fakeSubagent(log) : undefined, workspaceDir: ws });
    const files = snapshot(ws);
    delete files["memory/.dreams/events.jsonl"];
    out.push(placeholders({ ...variant, tree, seed, config: cfg, resolvedConfig: config, result, files, subagent: log, logs: lines },
      pathMap(ws, state)));
  }
  return out;
}

async function recordRemBackfill(copy, phases, stp) {
  const cli = await load(copy, "cli.runtime-CiSdxpC6.js");
  const harness = await load(copy, "rem-harness-wRkCzyUI.js");
  const toDiaryLines = extra(cli, "groundedMarkdownToDiaryLines");
  const seedItems = extra(cli, "collectGroundedShortTermSeedItems");
  const root = scratch("rem-backfill");
  const ws = path.join(root, "workspace");
  const src = path.join(root, "history");
  const scratchDir = path.join(root, "scratch");
  writeTree(ws, { "DREAMS.md": "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 28, 2026 at 3:00 AM PDT*\n\nA real entry.\n\n<!-- openclaw:dreaming:diary:end -->\n" });
  writeTree(src, {
    "2026-04-10.md": "# 2026-04-10\n\n## Preferences Learned\n- Alice prefers tea over coffee\n- Always use the shared calendar for travel\n\n## Setup\n- Installed the new router firmware\n- Configured the VLAN for the lab\n",
    "2026-04-11.md": "# 2026-04-11\n\n## Incidents\n- The nightly backup failed with an auth error; root cause was an expired token\n- Retry worked after rotating the key\n\n## Next Steps\n- follow up with the vendor\n",
    "notes.md": "# not a daily file\n",
  });
  fs.mkdirSync(path.join(scratchDir, "memory"), { recursive: true });
  const sourceFiles = fs.readdirSync(src).filter((n) => /^\d{4}-\d{2}-\d{2}\.md$/i.test(n)).sort().map((n) => path.join(src, n));
  const copies = sourceFiles.map((f) => {
    const dst = path.join(scratchDir, "memory", path.basename(f));
    fs.copyFileSync(f, dst);
    return dst;
  });
  const grounded = await harness.n({ workspaceDir: scratchDir, inputPaths: copies });
  const dayOf = (p) => path.basename(p).match(/^(\d{4}-\d{2}-\d{2})\.md$/i)?.[1] ?? null;
  const bySource = new Map(sourceFiles.map((f) => [dayOf(f), f]));
  const written = await phases.l({ workspaceDir: ws, timezone: "America/Los_Angeles", entries: grounded.files.map((file) => {
    const isoDay = dayOf(file.path);
    return isoDay ? { isoDay, sourcePath: bySource.get(isoDay) ?? file.path, bodyLines: toDiaryLines(file.renderedMarkdown) } : null;
  }).filter(Boolean) });
  const replaced = (await stp.u({ workspaceDir: ws })).removed;
  const items = seedItems(grounded.files);
  if (items.length > 0) await stp.c({ workspaceDir: ws, query: "__dreaming_grounded_backfill__", items,
    dedupeByQueryPerDay: true, nowMs: NOW_MS, timezone: "America/Los_Angeles" });
  const afterStage = snapshot(ws);
  const rollbackDiary = await phases.s({ workspaceDir: ws });
  const rollbackShortTerm = await stp.u({ workspaceDir: ws });
  const afterRollback = snapshot(ws);
  for (const snap of [afterStage, afterRollback]) delete snap["memory/.dreams/events.jsonl"];
  return placeholders({ sources: Object.fromEntries(fs.readdirSync(src).sort().map((n) => [n, fs.readFileSync(path.join(src, n), "utf8")])),
    grounded, written: { ...written, replacedShortTermEntries: replaced, stagedShortTermEntries: items.length }, seedItems: items,
    afterStage, rollback: { diary: rollbackDiary, shortTerm: rollbackShortTerm }, afterRollback },
  [[scratchDir, "<scratch>"], [src, "<history>"], [ws, "<ws>"]]);
}

async function recordGroundedNotes(copy) {
  const harness = await load(copy, "rem-harness-wRkCzyUI.js");
  const ws = scratch("grounded-notes");
  writeTree(ws, Object.fromEntries(Object.entries(GROUNDED_NOTES).map(([n, t]) => [`memory/${n}`, t])));
  const preview = await harness.n({ workspaceDir: ws, inputPaths: [path.join(ws, "memory")] });
  return placeholders({ notes: GROUNDED_NOTES, preview }, [[ws, "<ws>"]]);
}

/** Diary, phases, dream and rem-backfill; returns the recording. */
export async function recordSweep(copy) {
  const phases = await load(copy, "dreaming-phases-DmW2yDCv.js");
  const stp = await load(copy, "short-term-promotion-BCSgM8ok.js");
  const dreamingMod = await load(copy, "dreaming-BJo1St_B.js");
  return {
    diary: { module: "extensions/memory-core/src/dreaming-narrative.ts", ...(await recordDiary(phases)) },
    phases: { function: "runDreamingSweepPhases", module: "extensions/memory-core/src/dreaming-phases.ts",
      cases: await recordPhases(phases, stp) },
    dream: { function: "runShortTermDreamingPromotionIfTriggered", module: "extensions/memory-core/src/dreaming.ts",
      cases: await recordDream(dreamingMod, copy) },
    remBackfill: { function: "runMemoryRemBackfill (its steps)", module: "extensions/memory-core/src/cli.runtime.ts",
      ...(await recordRemBackfill(copy, phases, stp)) },
    groundedNotes: { function: "previewGroundedRemMarkdown", module: "extensions/memory-core/src/rem-evidence.ts",
      ...(await recordGroundedNotes(copy)) },
  };
}
