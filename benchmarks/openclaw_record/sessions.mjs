// Records OpenClaw 2026.4.29's session-context and dreaming functions, run in process over generated state
// dirs and workspaces, into tests/data/openclaw-2026.4.29/context/ (see README.md, "Sessions and dreaming").
// Usage: node benchmarks/openclaw_record/sessions.mjs [section ...]   (sections: flush bootstrap startup ...)
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePatchedCopy, installFixedClock, removeScratch, writeRecording } from "./sessions.common.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const installed = process.env.OPENCLAW_PACKAGE ?? "/work/oc/openclaw-2026.4.29/node_modules/openclaw";
const patched = process.env.OPENCLAW_PATCHED ?? "/work/oc/openclaw-17";
const outDir = path.join(repo, "tests", "data", "openclaw-2026.4.29", "context");

const SECTIONS = {
  flush: async (copy) => (await import("./sessions.flush.mjs")).recordFlush(copy),
  bootstrap: async (copy) => (await import("./sessions.bootstrap.mjs")).recordBootstrap(copy),
  prompts: async (copy) => (await import("./sessions.prompts.mjs")).recordPrompts(copy),
  dreaming: async (copy) => (await import("./sessions.dreaming.mjs")).recordDreaming(copy),
  sweep: async (copy) => (await import("./sessions.sweep.mjs")).recordSweep(copy),
};

async function main() {
  process.env.TZ = "UTC";
  process.env.NO_COLOR = "1";
  process.env.FORCE_COLOR = "0";
  installFixedClock();
  const copy = ensurePatchedCopy(installed, patched);
  const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SECTIONS);
  try {
    for (const name of wanted) {
      const started = process.hrtime.bigint();
      const data = await SECTIONS[name](copy);
      writeRecording(outDir, `${name}.json`, { openclaw: "2026.4.29", ...data });
      process.stderr.write(`${name}: ${Number(process.hrtime.bigint() - started) / 1e6} ms\n`);
    }
  } finally {
    removeScratch();
  }
}

await main();
