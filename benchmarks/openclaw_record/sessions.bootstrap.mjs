// Bootstrap ("Project Context") injection: OpenClaw's resolveBootstrapContextForRun over generated workspaces
// on the edges of each rule (2 MiB ±1, budgets ±1, symlinks, surrogate cuts, heartbeat, cron/subagent keys).
import fs from "node:fs";
import path from "node:path";
import { load, placeholders, scratch, sha256Utf16, writeTree } from "./sessions.common.mjs";

const MIB2 = 2 * 1024 * 1024;
const small = (name) => `# ${name}\n\nThe ${name} file of the test workspace.\n`;
const ALL = Object.fromEntries(
  ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"]
    .map((n) => [n, small(n)]),
);
const chars = (count, fill = "a") => ({ repeat: fill, count });
const cfg = (defaults = {}, extra = {}) => ({
  agents: { defaults: { workspace: "<ws>", ...defaults }, list: extra.list ?? [{ id: "main", default: true }] },
});

function cases() {
  const out = [];
  const add = (name, rule, tree, spec = {}) => out.push({ name, rule, tree, sessionKey: "agent:main:main", config: cfg(), ...spec });
  add("all-small", "order", ALL);
  add("none-present", "missing", {});
  add("only-memory-missing-others", "missing", { "MEMORY.md": small("MEMORY.md") });
  add("empty-agents-file", "missing", { ...ALL, "AGENTS.md": "" });
  add("whitespace-only-file", "truncation", { ...ALL, "SOUL.md": "   \n\n\t\n" });
  // 2 MiB: over the limit is "[MISSING]", not truncated
  for (const [label, size] of [["minus1", MIB2 - 1], ["exact", MIB2], ["plus1", MIB2 + 1]]) {
    add(`agents-2mib-${label}`, "max-file-bytes", { ...ALL, "AGENTS.md": { bytes: size, fill: "a" } });
  }
  add("memory-2mib-plus1", "max-file-bytes", { ...ALL, "MEMORY.md": { bytes: MIB2 + 1, fill: "m" } });
  // MEMORY.md variants
  add("memory-symlink-inside", "memory-symlink", { ...ALL, "MEMORY.md": { symlink: "notes/real-memory.md" },
    "notes/real-memory.md": "# Real memory\n\nLinked from MEMORY.md.\n" });
  add("memory-symlink-outside", "memory-symlink", { ...ALL, "MEMORY.md": { symlink: "@outside/memory.md" },
  }, { outside: { "memory.md": "# Outside\n\nNot in the workspace.\n" } });
  add("memory-symlink-dangling", "memory-symlink", { ...ALL, "MEMORY.md": { symlink: "nowhere.md" } });
  add("memory-lowercase-only", "memory-symlink", { ...ALL, "MEMORY.md": undefined, "memory.md": "# lower\n" });
  add("memory-is-directory", "memory-symlink", { ...ALL, "MEMORY.md": { dir: true } });
  add("agents-symlink-inside", "memory-symlink", { ...ALL, "AGENTS.md": { symlink: "docs/agents.md" },
    "docs/agents.md": "# Agents via link\n" });
  add("agents-symlink-outside", "memory-symlink", { ...ALL, "AGENTS.md": { symlink: "@outside/agents.md" } },
    { outside: { "agents.md": "# Outside agents\n" } });
  // Per-file budget ±1 (default 12000)
  for (const [label, n] of [["minus1", 11999], ["exact", 12000], ["plus1", 12001]]) {
    add(`per-file-${label}`, "per-file-budget", { ...ALL, "TOOLS.md": chars(n, "t") });
  }
  add("per-file-trailing-space", "per-file-budget", { ...ALL, "TOOLS.md": { parts: [chars(12000, "t"), "   \n\n"] } });
  add("per-file-custom-100", "per-file-budget", { ...ALL, "TOOLS.md": chars(500, "t") }, { config: cfg({ bootstrapMaxChars: 100 }) });
  add("per-file-compact-marker", "per-file-budget", { ...ALL, "TOOLS.md": chars(500, "t") }, { config: cfg({ bootstrapMaxChars: 60 }) });
  add("per-file-tiny-5", "per-file-budget", { ...ALL, "TOOLS.md": chars(500, "t") }, { config: cfg({ bootstrapMaxChars: 5 }) });
  add("per-file-agent-entry-ignored", "per-file-budget", { ...ALL, "TOOLS.md": chars(500, "t") },
    { config: cfg({}, { list: [{ id: "main", default: true, bootstrapMaxChars: 100 }] }) });
  // Total budget ±1 (default 60000) and the 64-char floor
  const five = (n) => ({ "AGENTS.md": chars(n, "a"), "SOUL.md": chars(n, "s"), "TOOLS.md": chars(n, "t"),
    "IDENTITY.md": chars(n, "i"), "USER.md": chars(n, "u") });
  for (const [label, total] of [["minus1", 59999], ["exact", 60000], ["plus1", 60001]]) {
    add(`total-${label}`, "total-budget", { ...five(12000) }, { config: cfg({ bootstrapTotalMaxChars: total }) });
  }
  for (const [label, left] of [["63", 63], ["64", 64], ["65", 65]]) {
    add(`remaining-${label}`, "total-budget", { "AGENTS.md": chars(1000, "a"), "SOUL.md": chars(100, "s") },
      { config: cfg({ bootstrapTotalMaxChars: 1000 + left }) });
  }
  add("missing-text-clamped", "total-budget", {}, { config: cfg({ bootstrapTotalMaxChars: 20 }) });
  // CJK and emoji: UTF-16 lengths, cuts inside surrogate pairs
  add("cjk-over-budget", "utf16", { ...ALL, "USER.md": chars(13000, "记") });
  add("emoji-head-cut-in-pair", "utf16", { ...ALL, "USER.md": chars(7000, "😀") });
  add("emoji-odd-budget", "utf16", { ...ALL, "USER.md": chars(400, "😀") }, { config: cfg({ bootstrapMaxChars: 101 }) });
  add("emoji-offset-budget", "utf16", { ...ALL, "USER.md": { parts: ["x", chars(400, "😀")] } }, { config: cfg({ bootstrapMaxChars: 101 }) });
  add("emoji-total-clamp", "utf16", { "AGENTS.md": chars(100, "😀") }, { config: cfg({ bootstrapTotalMaxChars: 151 }) });
  add("bom-and-crlf", "utf16", { ...ALL, "SOUL.md": "\ufeff# Soul\r\n\r\nWindows line ends.\r\n" });
  add("invalid-utf8", "utf16", { ...ALL, "SOUL.md": { text: "", rawHex: "23205ac3280a6f6bffa0e282" } });
  // HEARTBEAT.md and the minimal allowlist
  add("heartbeat-every-0m", "heartbeat", ALL, { config: cfg({ heartbeat: { every: "0m" } }) });
  add("heartbeat-every-0", "heartbeat", ALL, { config: cfg({ heartbeat: { every: "0" } }) });
  add("heartbeat-every-30m", "heartbeat", ALL, { config: cfg({ heartbeat: { every: "30m" } }) });
  add("heartbeat-every-empty", "heartbeat", ALL, { config: cfg({ heartbeat: { every: "" } }) });
  add("heartbeat-section-off", "heartbeat", ALL, { config: cfg({ heartbeat: { includeSystemPromptSection: false } }) });
  add("heartbeat-other-agent-only", "heartbeat", ALL, {
    config: cfg({}, { list: [{ id: "main", default: true }, { id: "ops", heartbeat: { every: "1h" } }] }) });
  add("heartbeat-0m-non-default-agent", "heartbeat", ALL, { sessionKey: "agent:ops:main",
    config: cfg({ heartbeat: { every: "0m" } }, { list: [{ id: "main", default: true }, { id: "ops" }] }) });
  for (const key of ["agent:main:cron:nightly", "agent:main:subagent:task-1", "subagent:task-2", "cron:nightly",
    "agent:main:telegram:group:42", "agent:main:hook:abc", "agent:main:cron", "AGENT:MAIN:CRON:X"]) {
    add(`session-key-${key.replaceAll(":", "-")}`, "minimal-allowlist", ALL, { sessionKey: key });
  }
  return out;
}

function materialize(root, tree) {
  const clean = Object.fromEntries(Object.entries(tree).filter(([, v]) => v !== undefined && !(v && v.rawHex !== undefined)));
  writeTree(root, clean);
  for (const [rel, spec] of Object.entries(tree)) {
    if (spec && spec.rawHex !== undefined) fs.writeFileSync(path.join(root, rel), Buffer.from(spec.rawHex, "hex"));
  }
}

function describeContent(content) {
  const lone = (content.match(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g) ?? []).length;
  const counts = lone ? { loneSurrogates: lone } : {};
  if (content.length <= 600) return { content, ...counts };
  return { contentLength: content.length, contentSha256Utf16: sha256Utf16(content),
    head: content.slice(0, 80), tail: content.slice(-80), ...counts };
}

/** Run every bootstrap case; returns the recording. */
export async function recordBootstrap(copy) {
  const mod = await load(copy, "bootstrap-files-QeIx1Yv6.js");
  const resolveBootstrapContextForRun = mod.i;
  const recorded = [];
  for (const spec of cases()) {
    const root = scratch(`boot-${spec.name}`);
    const ws = path.join(root, "workspace");
    fs.mkdirSync(ws, { recursive: true });
    materialize(ws, Object.fromEntries(Object.entries(spec.tree).filter(([k]) => !k.startsWith("../"))));
    const outside = `${ws}-outside`;
    for (const [name, text] of Object.entries(spec.outside ?? {})) {
      fs.mkdirSync(outside, { recursive: true });
      fs.writeFileSync(path.join(outside, name), text);
    }
    const config = JSON.parse(JSON.stringify(spec.config).split("<ws>").join(ws));
    const warnings = [];
    const result = await resolveBootstrapContextForRun({
      workspaceDir: ws, config, sessionKey: spec.sessionKey, sessionId: "s1", warn: (m) => warnings.push(m),
    });
    const map = [[outside, "<outside>"], [ws, "<ws>"]];
    const tree = Object.fromEntries(Object.entries(spec.tree).filter(([k, v]) => v !== undefined && !k.startsWith("../")));
    recorded.push(placeholders({
      name: spec.name, rule: spec.rule, sessionKey: spec.sessionKey, config: spec.config, tree,
      ...(spec.outside ? { outside: spec.outside } : {}),
      result: {
        bootstrapFiles: result.bootstrapFiles.map((f) => ({ name: f.name, path: f.path, missing: f.missing,
          ...(f.content !== undefined ? { rawLength: f.content.length } : {}) })),
        contextFiles: result.contextFiles.map((f) => ({ path: f.path, ...describeContent(f.content) })),
        warnings,
      },
    }, map));
  }
  return { function: "resolveBootstrapContextForRun", module: "src/agents/bootstrap-files.ts", cases: recorded };
}
