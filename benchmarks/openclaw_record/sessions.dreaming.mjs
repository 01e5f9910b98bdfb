// Dreaming signals, ranking and promotion: deriveConceptTags, isContaminatedDreamingSnippet, the short-term
// path rule, and scenarios of recordShortTermRecalls / recordDreamingPhaseSignals /
// recordGroundedShortTermCandidates / rankShortTermPromotionCandidates / applyShortTermPromotions.
import fs from "node:fs";
import path from "node:path";
import { CONTAMINATED, SHORT_TERM_PATHS, conceptTagInputs } from "./sessions.corpus.mjs";
import { extra, load, NOW_MS, placeholders, scratch, writeTree } from "./sessions.common.mjs";

const HOUR = 3600000;
const DAY = 24 * HOUR;
const hit = (p, start, end, score, snippet, source = "memory") => ({ path: p, startLine: start, endLine: end, score, snippet, source });
const DAILY = "# 2026-04-27\n\n## Gateway\n- Decided to keep the gateway on port 8080 behind the router\n- The nightly backup to S3 failed twice\n- Failover to the NAS worked\n\n## People\n- Alice prefers tea over coffee\n";
const GATEWAY = "Gateway: Decided to keep the gateway on port 8080 behind the router; The nightly backup to S3 failed twice";
const CJK = "网关配置已经更新，路由器和备份都正常，故障转移测试在周五完成";
const CJK_FILE = `# 2026-04-26\n\n${CJK}\n`;

function recalls(p, start, end, snippet, days, score = 0.9) {
  return days.map((d, i) => ({ op: "record", query: `query ${i + 1} about ${p}`, results: [hit(p, start, end, score, snippet)],
    nowMs: NOW_MS - d * DAY - HOUR }));
}

function scenarios() {
  return [
    { name: "record-kinds", steps: [
      { op: "files", tree: { "memory/2026-04-27.md": DAILY, "memory/2026-04-26-gateway-notes.md": "# slug\n\n- slug notes here\n" } },
      { op: "record", query: "Gateway Port", results: [
        hit("memory/2026-04-27.md", 3, 5, 0.83, `  ${GATEWAY}\n  `),
        hit("memory/2026-04-26-gateway-notes.md", 1, 3, 0.9, "slug notes here"),
        hit("MEMORY.md", 1, 2, 0.9, "long-term note"),
        hit("memory/2026-04-27.md", 9, 9, 0.7, "sessions hit", "sessions"),
        hit("memory/dreaming/light/2026-04-27.md", 1, 5, 0.9, "light report"),
        hit("memory/2026-04-27.md", 20, 24, 0.9, "- Candidate: x\n  - confidence: 0.62\n  - evidence: memory/2026-04-27.md:3-5\n  - recalls: 2\n  - status: staged"),
        hit("./memory/2026-04-27.md", 9.7, 9.2, 1.7, "Alice prefers tea over coffee"),
        hit("memory/.dreams/session-corpus/2026-04-27.txt", 4, 4, -0.5, "[main/s1.jsonl#L4] user asked about the router"),
      ] },
      { op: "record", query: "gateway port", results: [hit("memory/2026-04-27.md", 3, 5, 0.6, GATEWAY)], nowMs: NOW_MS + HOUR },
      { op: "record", query: "   ", results: [hit("memory/2026-04-27.md", 3, 5, 0.6, GATEWAY)] },
      { op: "rank", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0 } },
    ] },
    { name: "cjk-crosses-min-score", steps: [
      { op: "files", tree: { "memory/2026-04-26.md": CJK_FILE } },
      ...recalls("memory/2026-04-26.md", 3, 3, CJK, [2, 1, 0]),
      { op: "rank", options: {} },
      { op: "apply", options: { timezone: "UTC" } },
    ] },
    { name: "english-default-thresholds", steps: [
      { op: "files", tree: { "memory/2026-04-27.md": DAILY } },
      ...recalls("memory/2026-04-27.md", 3, 5, GATEWAY, [3, 1, 0], 0.88),
      { op: "rank", options: {} },
      { op: "rank", options: { minScore: 0.8, minRecallCount: 3, minUniqueQueries: 3, maxAgeDays: 30, limit: 10 } },
      { op: "apply", options: { timezone: "America/Los_Angeles" } },
      { op: "rank", options: { includePromoted: true } },
    ] },
    { name: "tofixed-ties", steps: [
      { op: "files", tree: { "memory/2026-04-25.md": "# d\n\n- tie one eighty one two five\n- tie five six two five\n" } },
      { op: "writeStore", store: { version: 1, updatedAt: "2026-04-28T00:00:00.000Z", entries: {
        "memory:memory/2026-04-25.md:3:3": storeEntry("memory/2026-04-25.md", 3, 3, "tie one eighty one two five", 4, 3.25),
        "memory:memory/2026-04-25.md:4:4": storeEntry("memory/2026-04-25.md", 4, 4, "tie five six two five", 4, 2.25),
      } } },
      { op: "rank", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0 } },
      { op: "apply", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0, timezone: "UTC" } },
    ] },
    { name: "rehydrate-relocate", steps: [
      { op: "files", tree: {
        "memory/2026-04-24.md": "# d\n\n- first stable line\n- second stable line\n- moved line about the router\n",
        "memory/2026-04-23.md": "# d\n\n- this one will change\n",
        "memory/2026-04-22.md": "# d\n\n- this file will be deleted\n",
        "memory/2026-04-21.md": "# d\n\n- wide window target\n- with a neighbour\n",
        "MEMORY.md": "# Long-Term Memory\n\n- existing bullet without newline",
      } },
      { op: "writeStore", store: { version: 1, updatedAt: "2026-04-28T00:00:00.000Z", entries: {
        "memory:memory/2026-04-24.md:5:5": storeEntry("memory/2026-04-24.md", 5, 5, "moved line about the router", 5, 4.5),
        "memory:memory/2026-04-23.md:3:3": storeEntry("memory/2026-04-23.md", 3, 3, "this one will change", 5, 4.5),
        "memory:memory/2026-04-22.md:3:3": storeEntry("memory/2026-04-22.md", 3, 3, "this file will be deleted", 5, 4.5),
        "memory:2026-04-21.md:3:3": storeEntry("2026-04-21.md", 3, 3, "wide window target", 5, 4.5),
        "memory:memory/2026-04-24.md:3:4": storeEntry("memory/2026-04-24.md", 3, 4, "first stable line second stable", 5, 4.4),
      } } },
      { op: "files", tree: {
        "memory/2026-04-24.md": "# d\n\nintro added later\n\n- first stable line\n- second stable line\n- moved line about the router\n",
        "memory/2026-04-23.md": "# d\n\n- this one was rewritten\n",
        "MEMORY.md": "# Long-Term Memory\n\n- existing bullet without newline\n\n<!-- openclaw-memory-promotion:memory:memory/2026-04-24.md:3:4 -->\n- already there",
      } },
      { op: "delete", path: "memory/2026-04-22.md" },
      { op: "rank", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0 } },
      { op: "apply", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0, timezone: "UTC" } },
    ] },
    { name: "empty-memory-header", steps: [
      { op: "files", tree: { "memory/2026-04-27.md": DAILY, "MEMORY.md": "  \n" } },
      ...recalls("memory/2026-04-27.md", 9, 9, "Alice prefers tea over coffee", [2, 1, 0], 0.95),
      { op: "rank", options: {} },
      { op: "apply", options: { limit: 1, timezone: "Asia/Tokyo" } },
    ] },
    { name: "phase-boosts", steps: [
      { op: "files", tree: { "memory/2026-04-27.md": DAILY } },
      ...recalls("memory/2026-04-27.md", 3, 5, GATEWAY, [1, 0], 0.7),
      { op: "rank", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0 } },
      { op: "phase", phase: "light", keys: ["memory:memory/2026-04-27.md:3:5", " memory:memory/2026-04-27.md:3:5 ", "unknown:key"], nowMs: NOW_MS - 20 * DAY },
      { op: "phase", phase: "light", keys: ["memory:memory/2026-04-27.md:3:5"], nowMs: NOW_MS - 3 * DAY },
      { op: "phase", phase: "rem", keys: ["memory:memory/2026-04-27.md:3:5"], nowMs: NOW_MS - HOUR },
      { op: "rank", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0 } },
    ] },
    { name: "grounded-and-dedupe", steps: [
      { op: "files", tree: { "memory/2026-04-27.md": DAILY } },
      { op: "grounded", query: "__dreaming_grounded_backfill__", items: [
        { path: "memory/2026-04-27.md", startLine: 9, endLine: 9, snippet: "Alice prefers tea over coffee", score: 0.92,
          query: "__dreaming_grounded_backfill__:lasting-update", signalCount: 2, dayBucket: "2026-04-27" },
        { path: "memory/2026-04-26-gateway-notes.md", startLine: 1, endLine: 1, snippet: "slug", score: 0.9 },
      ], dedupeByQueryPerDay: true },
      { op: "record", query: "__dreaming_daily__:2026-04-27", signalType: "daily", dedupeByQueryPerDay: true,
        dayBucket: "2026-04-29", results: [hit("memory/2026-04-27.md", 9, 9, 0.62, "Alice prefers tea over coffee")] },
      { op: "record", query: "__dreaming_daily__:2026-04-27", signalType: "daily", dedupeByQueryPerDay: true,
        dayBucket: "2026-04-29", results: [hit("memory/2026-04-27.md", 9, 9, 0.62, "Alice prefers tea over coffee")] },
      { op: "rank", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0 } },
    ] },
    { name: "caps", steps: [
      { op: "files", tree: { "memory/2026-04-27.md": DAILY } },
      ...Array.from({ length: 34 }, (_, i) => ({ op: "record", query: `Q${i}`, results: [hit("memory/2026-04-27.md", 9, 9, 0.5,
        "Alice prefers tea over coffee")], nowMs: NOW_MS - (33 - i) * DAY / 2 })),
      { op: "rank", options: { minScore: 0, minRecallCount: 0, minUniqueQueries: 0, maxAgeDays: 1 } },
    ] },
  ];
}

function storeEntry(p, start, end, snippet, recallCount, totalScore) {
  return { key: `memory:${p}:${start}:${end}`, path: p, startLine: start, endLine: end, source: "memory", snippet,
    recallCount, dailyCount: 0, groundedCount: 0, totalScore, maxScore: 0.9,
    firstRecalledAt: "2026-04-26T10:00:00.000Z", lastRecalledAt: "2026-04-28T10:00:00.000Z",
    queryHashes: ["aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"], recallDays: ["2026-04-26", "2026-04-27", "2026-04-28"],
    conceptTags: ["router", "gateway"] };
}

const read = (p) => (fs.existsSync(p) ? fs.readFileSync(p, "utf8") : null);

/** Run every dreaming input and scenario; returns the recording. */
export async function recordDreaming(copy) {
  const stp = await load(copy, "short-term-promotion-BCSgM8ok.js");
  const deriveConceptTags = extra(stp, "deriveConceptTags");
  const isContaminated = extra(stp, "isContaminatedDreamingSnippet");
  const isShortTerm = extra(stp, "isShortTermMemoryPath");
  const segmenter = new Intl.Segmenter("und", { granularity: "word" });
  const tags = conceptTagInputs().map((input) => ({ ...input, tags: deriveConceptTags(input),
    wordSegments: Array.from(segmenter.segment(`${path.basename(input.path)} ${input.snippet}`))
      .filter((s) => s.isWordLike).map((s) => s.segment) }));
  const recorded = [];
  for (const scenario of scenarios()) {
    const ws = path.join(scratch(`dream-${scenario.name}`), "workspace");
    fs.mkdirSync(ws, { recursive: true });
    const files = {
      store: path.join(ws, "memory/.dreams/short-term-recall.json"),
      phaseSignals: path.join(ws, "memory/.dreams/phase-signals.json"),
      memory: path.join(ws, "MEMORY.md"),
    };
    let lastRank = [];
    const steps = [];
    for (const step of scenario.steps) {
      let output;
      if (step.op === "files") writeTree(ws, step.tree);
      else if (step.op === "delete") fs.rmSync(path.join(ws, step.path));
      else if (step.op === "writeStore") {
        fs.mkdirSync(path.dirname(files.store), { recursive: true });
        fs.writeFileSync(files.store, `${JSON.stringify(step.store, null, 2)}\n`);
      } else if (step.op === "record") {
        await stp.l({ workspaceDir: ws, query: step.query, results: step.results, nowMs: step.nowMs ?? NOW_MS,
          signalType: step.signalType, dedupeByQueryPerDay: step.dedupeByQueryPerDay, dayBucket: step.dayBucket,
          timezone: step.timezone ?? "UTC" });
      } else if (step.op === "grounded") {
        await stp.c({ workspaceDir: ws, query: step.query, items: step.items, dedupeByQueryPerDay: step.dedupeByQueryPerDay,
          nowMs: step.nowMs ?? NOW_MS, timezone: "UTC" });
      } else if (step.op === "phase") {
        await stp.s({ workspaceDir: ws, phase: step.phase, keys: step.keys, nowMs: step.nowMs ?? NOW_MS });
      } else if (step.op === "rank") {
        lastRank = await stp.a({ workspaceDir: ws, nowMs: NOW_MS, ...step.options });
        output = lastRank;
      } else if (step.op === "apply") {
        output = await stp.n({ workspaceDir: ws, candidates: lastRank, nowMs: NOW_MS, ...step.options });
      }
      steps.push({ ...step, ...(output !== undefined ? { output } : {}),
        after: { store: read(files.store), phaseSignals: read(files.phaseSignals), memory: read(files.memory) } });
    }
    const events = read(path.join(ws, "memory/.dreams/events.jsonl"));
    recorded.push(placeholders({ name: scenario.name, nowMs: NOW_MS, steps, events }, [[ws, "<ws>"]]));
  }
  return {
    conceptTags: { function: "deriveConceptTags", segmenter: "Intl.Segmenter('und', {granularity: 'word'})",
      icu: process.versions.icu, unicode: process.versions.unicode, cases: tags },
    contaminated: { function: "isContaminatedDreamingSnippet",
      cases: CONTAMINATED.map((snippet) => ({ snippet, contaminated: isContaminated(snippet) })) },
    shortTermPaths: { function: "isShortTermMemoryPath",
      cases: SHORT_TERM_PATHS.map((p) => ({ path: p, shortTerm: isShortTerm(p) })) },
    scenarios: { module: "extensions/memory-core/src/short-term-promotion.ts", cases: recorded },
  };
}
