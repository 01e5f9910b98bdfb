// The /new and /reset startup prelude (buildSessionStartupContextPrelude) and the flush prompts
// (buildMemoryFlushPlan) over generated workspaces and configs.
import fs from "node:fs";
import path from "node:path";
import { load, NOW_MS, placeholders, scratch, writeTree } from "./sessions.common.mjs";

const DAY = 86400000;
const note = (label) => `# ${label}\n\n- decided to keep the gateway on port 8080\n- 记住：备份在周五\n`;

function startupCases() {
  const out = [];
  const add = (name, tree, startupContext, extra = {}) => out.push({ name, tree,
    config: { agents: { defaults: { userTimezone: extra.tz ?? "UTC", ...(startupContext ? { startupContext } : {}) } } },
    nowMs: extra.nowMs ?? NOW_MS });
  add("today-and-yesterday", { "memory/2026-04-29.md": note("today"), "memory/2026-04-28.md": note("yesterday") });
  add("nothing", {});
  add("slug-files-newest-four", {
    "memory/2026-04-29.md": note("today"),
    ...Object.fromEntries([1, 2, 3, 4, 5].map((i) => [`memory/2026-04-29-topic-${i}.md`,
      { text: note(`slug ${i}`), mtimeMs: NOW_MS - (10 - i) * 60000 }])),
  });
  add("slug-files-mtime-tie-by-name", {
    "memory/2026-04-29-alpha.md": { text: note("alpha"), mtimeMs: NOW_MS - 60000 },
    "memory/2026-04-29-beta.md": { text: note("beta"), mtimeMs: NOW_MS - 60000 },
  });
  add("slug-without-dash-ignored", { "memory/2026-04-29.md": note("today"), "memory/2026-04-29x.md": note("odd"),
    "memory/2026-04-29-ünïcode name.md": { text: note("unicode"), mtimeMs: NOW_MS - 1000 } });
  for (const [label, n] of [["minus1", 1199], ["exact", 1200], ["plus1", 1201]]) {
    add(`file-chars-${label}`, { "memory/2026-04-29.md": { repeat: "d", count: n } });
  }
  for (const [label, n] of [["minus1", 16383], ["exact", 16384], ["plus1", 16385]]) {
    add(`file-bytes-${label}`, { "memory/2026-04-29.md": { bytes: n, fill: "b" } });
  }
  add("total-budget-tight", { "memory/2026-04-29.md": { repeat: "t", count: 1100 }, "memory/2026-04-28.md": { repeat: "y", count: 1100 } },
    { maxTotalChars: 1500 });
  add("total-budget-one", { "memory/2026-04-29.md": note("today") }, { maxTotalChars: 1 });
  add("days-three-clamped-chars", { "memory/2026-04-29.md": note("a"), "memory/2026-04-28.md": note("b"), "memory/2026-04-27.md": note("c") },
    { dailyMemoryDays: 3, maxFileChars: 40 });
  add("days-zero-clamps-to-one", { "memory/2026-04-29.md": note("a"), "memory/2026-04-28.md": note("b") }, { dailyMemoryDays: 0 });
  add("fences-escaped", { "memory/2026-04-29.md": "```js\nconsole.log(1)\n```\n" });
  add("emoji-cut", { "memory/2026-04-29.md": { repeat: "😀", count: 700 } });
  add("tz-ahead-utc-date-added", { "memory/2026-04-30.md": note("kiritimati"), "memory/2026-04-29.md": note("utc") }, null,
    { tz: "Pacific/Kiritimati", nowMs: NOW_MS + 12 * 3600000 });
  add("tz-behind", { "memory/2026-04-28.md": note("la"), "memory/2026-04-29.md": note("utc") }, null,
    { tz: "America/Los_Angeles", nowMs: NOW_MS - 5 * 3600000 });
  add("symlink-inside", { "memory/2026-04-29.md": { symlink: "../notes/today.md" }, "notes/today.md": note("linked") });
  add("symlink-outside", { "memory/2026-04-29.md": { symlink: "@outside/today.md" } }, null, { outside: true });
  add("whitespace-only", { "memory/2026-04-29.md": "  \n\t\n" });
  add("label-sanitized", { "memory/2026-04-29-[draft]\tnotes.md": { text: note("draft"), mtimeMs: NOW_MS - DAY / 2 } });
  return out;
}

function planCases() {
  const out = [];
  const add = (name, defaults) => out.push({ name, config: { agents: { defaults } } });
  add("defaults", {});
  add("timezone-tokyo", { userTimezone: "Asia/Tokyo" });
  add("custom-prompt-missing-hints", { compaction: { memoryFlush: { prompt: "Write notes to memory/YYYY-MM-DD.md." } } });
  add("custom-prompt-with-no-reply", { compaction: { memoryFlush: { prompt: "Save facts. Reply NO_REPLY when done.",
    systemPrompt: "  Flush turn.  " } } });
  add("custom-prompt-current-time", { compaction: { memoryFlush: { prompt: "Current time: given. YYYY-MM-DD" } } });
  add("thresholds", { compaction: { reserveTokensFloor: 12345.9, memoryFlush: { softThresholdTokens: -5,
    forceFlushTranscriptBytes: "512kb", model: "  acme/small " } } });
  add("disabled", { compaction: { memoryFlush: { enabled: false } } });
  add("time-format-24", { userTimezone: "America/New_York", timeFormat: "24" });
  return out;
}

/** Run the startup prelude and flush plan cases; returns the recording. */
export async function recordPrompts(copy) {
  const startup = await load(copy, "startup-context-tffQNkSJ.js");
  const memoryCore = await load(copy, "extensions/memory-core/index.js");
  const startupRecorded = [];
  for (const spec of startupCases()) {
    const root = scratch(`startup-${spec.name}`);
    const ws = path.join(root, "workspace");
    fs.mkdirSync(ws, { recursive: true });
    const outside = writeTree(ws, spec.tree);
    if (spec.name === "symlink-outside") fs.writeFileSync(path.join(outside, "today.md"), note("outside"));
    const prelude = await startup.t({ workspaceDir: ws, cfg: spec.config, nowMs: spec.nowMs });
    startupRecorded.push(placeholders({ ...spec, result: prelude ?? null }, [[outside, "<outside>"], [ws, "<ws>"]]));
  }
  const plans = planCases().map((spec) => ({ ...spec, nowMs: NOW_MS,
    result: memoryCore.buildMemoryFlushPlan({ cfg: spec.config, nowMs: NOW_MS }) }));
  return {
    startup: { function: "buildSessionStartupContextPrelude", module: "src/auto-reply/reply/startup-context.ts",
      cases: startupRecorded },
    flushPlan: { function: "buildMemoryFlushPlan", module: "extensions/memory-core/src/flush-plan.ts", cases: plans },
  };
}
