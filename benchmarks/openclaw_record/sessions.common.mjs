// Shared plumbing of the session-context and dreaming recording (see README.md, "Sessions and dreaming").
// A fixed clock, a patched copy of OpenClaw's package that exports the functions it keeps private,
// scratch folders, and the file generators the Python tests mirror (tests/openclaw_context_data.py).
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const NOW_MS = Date.UTC(2026, 3, 29, 10, 0, 0);
export const VERSION = "2026.4.29";

/** Replace the global clock: `Date.now()` and `new Date()` both answer NOW_MS (set before OpenClaw loads). */
export function installFixedClock(nowMs = NOW_MS) {
  const RealDate = globalThis.Date;
  class FixedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(nowMs);
      else super(...args);
    }
    static now() {
      return nowMs;
    }
  }
  globalThis.Date = FixedDate;
}

// Private functions the recording needs, per dist file of 2026.4.29: an `export` line is appended to a copy.
const EXTRA_EXPORTS = {
  "agent-runner.runtime-Bf-1Z53T.js": ["runMemoryFlushIfNeeded", "memoryDeps"],
  "short-term-promotion-BCSgM8ok.js": [
    "deriveConceptTags", "isContaminatedDreamingSnippet", "isShortTermMemoryPath", "calculatePhaseSignalBoost",
    "buildPromotionSection",
  ],
  "dreaming-phases-DmW2yDCv.js": [
    "appendNarrativeEntry", "formatNarrativeDate", "buildNarrativePrompt", "runLightDreaming", "runRemDreaming",
    "buildNarrativeSessionKey",
  ],
  "dreaming-BJo1St_B.js": ["runShortTermDreamingPromotionIfTriggered"],
  "cli.runtime-CiSdxpC6.js": ["groundedMarkdownToDiaryLines", "collectGroundedShortTermSeedItems"],
};

/** A copy of the installed package (dependencies symlinked) whose private functions are exported. */
export function ensurePatchedCopy(installedPackage, patchedRoot) {
  const pkg = JSON.parse(fs.readFileSync(path.join(installedPackage, "package.json"), "utf8"));
  if (pkg.version !== VERSION) throw new Error(`expected openclaw ${VERSION}, found ${pkg.version}`);
  const modules = path.join(patchedRoot, "node_modules");
  const copy = path.join(modules, "openclaw");
  const stamp = path.join(copy, ".memtui-patched");
  if (fs.existsSync(stamp)) return copy;
  fs.rmSync(patchedRoot, { recursive: true, force: true });
  fs.mkdirSync(modules, { recursive: true });
  const installedModules = path.dirname(installedPackage);
  for (const name of fs.readdirSync(installedModules)) {
    if (name === "openclaw" || name === ".bin" || name.startsWith(".")) continue;
    fs.symlinkSync(path.join(installedModules, name), path.join(modules, name));
  }
  fs.cpSync(installedPackage, copy, { recursive: true });
  for (const [file, names] of Object.entries(EXTRA_EXPORTS)) {
    const target = path.join(copy, "dist", file);
    const text = fs.readFileSync(target, "utf8");
    for (const name of names) {
      if (!new RegExp(`(?:function|const|let) ${name}\\b`).test(text)) throw new Error(`${name} not in ${file}`);
    }
    fs.appendFileSync(target, `\nexport { ${names.map((n) => `${n} as __memtui_${n}`).join(", ")} };\n`);
  }
  fs.writeFileSync(stamp, `${VERSION}\n`);
  return copy;
}

/** Import one dist module of the patched copy. */
export async function load(copy, file) {
  return await import(pathToFileURL(path.join(copy, "dist", file)).href);
}

/** The patched-in export `name` of a loaded module. */
export function extra(module, name) {
  const fn = module[`__memtui_${name}`];
  if (!fn) throw new Error(`missing patched export ${name}`);
  return fn;
}

let scratchRoot;
let scratchCount = 0;

/** A fresh empty folder under the run's scratch root. */
export function scratch(label) {
  scratchRoot ??= fs.mkdtempSync(path.join(process.env.RECORD_SCRATCH ?? "/tmp", "oc-sessions-"));
  const dir = path.join(scratchRoot, `${String(++scratchCount).padStart(3, "0")}-${label}`);
  fs.mkdirSync(dir, { recursive: true });
  return fs.realpathSync(dir);
}

export function removeScratch() {
  if (scratchRoot) fs.rmSync(scratchRoot, { recursive: true, force: true });
}

/** sha256 hex of a string's UTF-16LE code units (lone surrogates included). */
export function sha256Utf16(text) {
  const units = Buffer.alloc(text.length * 2);
  for (let i = 0; i < text.length; i++) units.writeUInt16LE(text.charCodeAt(i), i * 2);
  return createHash("sha256").update(units).digest("hex");
}

export function sha256Bytes(buffer) {
  return createHash("sha256").update(buffer).digest("hex");
}

/**
 * Text from a generator spec: a string, or {repeat, count} (the string repeated), or {parts: [spec, ...]}.
 * The Python tests build the same text from the same spec.
 */
export function specText(spec) {
  if (typeof spec === "string") return spec;
  if (spec.parts) return spec.parts.map(specText).join("");
  if (spec.repeat !== undefined) return spec.repeat.repeat(spec.count);
  throw new Error(`bad text spec ${JSON.stringify(spec)}`);
}

/**
 * Write a workspace or state tree from {relativePath: spec}; a spec is a text spec, {symlink: target}
 * (target relative to the link's folder, or "@outside/<name>" for a file in a sibling folder of the root),
 * {bytes: n, fill: "x"} for an exact-size file, {dir: true} for a folder, or {mtimeMs, text} to set the time.
 */
export function writeTree(root, tree) {
  const outside = path.join(path.dirname(root), `${path.basename(root)}-outside`);
  for (const [rel, spec] of Object.entries(tree)) {
    const target = path.join(root, rel);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (spec && typeof spec === "object" && spec.symlink !== undefined) {
      let link = spec.symlink;
      if (link.startsWith("@outside/")) {
        fs.mkdirSync(outside, { recursive: true });
        link = path.join(outside, link.slice("@outside/".length));
      }
      fs.symlinkSync(link, target);
      continue;
    }
    if (spec && typeof spec === "object" && spec.dir) {
      fs.mkdirSync(target, { recursive: true });
      continue;
    }
    if (spec && typeof spec === "object" && spec.bytes !== undefined) {
      fs.writeFileSync(target, Buffer.alloc(spec.bytes, spec.fill ?? "x"));
    } else {
      fs.writeFileSync(target, specText(spec && typeof spec === "object" && spec.text !== undefined ? spec.text : spec));
    }
    if (spec && typeof spec === "object" && spec.mtimeMs !== undefined) {
      fs.utimesSync(target, spec.mtimeMs / 1000, spec.mtimeMs / 1000);
    }
  }
  return outside;
}

/** Replace every occurrence of each absolute folder in `value` (deep) by its placeholder. */
export function placeholders(value, map) {
  if (typeof value === "string") {
    let out = value;
    for (const [dir, label] of map) out = out.split(dir).join(label);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => placeholders(v, map));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [placeholders(k, map), placeholders(v, map)]));
  }
  return value;
}

/** Write one recording file: deterministic JSON, one space indent, trailing newline; refuses machine paths. */
export function writeRecording(outDir, name, data) {
  const text = `${JSON.stringify(data, null, 1)}\n`;
  for (const bad of ["/tmp/", "/root/", "/home/", "/work/"]) {
    const at = text.indexOf(bad);
    if (at >= 0) throw new Error(`${name}: recording contains a machine path: ${text.slice(at - 80, at + 120)}`);
  }
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, name), text);
}
