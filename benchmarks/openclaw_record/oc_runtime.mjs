// Shared helpers for the recorder drivers: reach functions inside OpenClaw 2026.4.29's bundled `dist/`
// without patching it. The bundle keeps each function's name but exports it from hashed chunk files under
// one-letter aliases, so a binding is found through a module that imports it by name
// (`import { n as getMemorySearchManager } from "./memory-xyz.js"`).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export class OpenClawDist {
  constructor(openclawDir) {
    this.dist = path.join(openclawDir, "dist");
    this.files = fs.readdirSync(this.dist).filter((name) => name.endsWith(".js"));
  }

  /** The chunk files named `<prefix>-<8-character hash>.js`. */
  chunks(prefix) {
    const hashed = /^[A-Za-z0-9_-]{8}\.js$/;
    return this.files.filter((name) => name.startsWith(`${prefix}-`) && hashed.test(name.slice(prefix.length + 1)));
  }

  /** The one chunk file named `<prefix>-<hash>.js`. */
  chunk(prefix) {
    const found = this.chunks(prefix);
    if (found.length !== 1) throw new Error(`expected one dist/${prefix}-*.js, found ${found.length}`);
    return found[0];
  }

  async load(file) {
    return await import(pathToFileURL(path.join(this.dist, file)).href);
  }

  /** The binding `localName` as a chunk `<consumerPrefix>-*.js` imports it. */
  async imported(consumerPrefix, localName) {
    const re = /import\s*\{([^}]*)\}\s*from\s*"\.\/([^"]+)"/g;
    for (const consumer of this.chunks(consumerPrefix)) {
      const source = fs.readFileSync(path.join(this.dist, consumer), "utf-8");
      for (const match of source.matchAll(re)) {
        for (const part of match[1].split(",")) {
          const [exported, local] = part.trim().split(/\s+as\s+/);
          if ((local ?? exported) === localName) return (await this.load(match[2]))[exported];
        }
      }
    }
    throw new Error(`no dist/${consumerPrefix}-*.js imports ${localName}`);
  }
}

/** Collect what OpenClaw's CLI runtime would print: JSON documents, log lines and error lines. */
export function captureRuntime(defaultRuntime) {
  const captured = { json: [], log: [], error: [] };
  defaultRuntime.writeJson = (value, space = 2) => captured.json.push(JSON.stringify(value, null, space > 0 ? space : undefined));
  defaultRuntime.log = (...args) => captured.log.push(args.join(" "));
  defaultRuntime.error = (...args) => captured.error.push(args.join(" "));
  return {
    take() {
      const out = { json: captured.json.splice(0), log: captured.log.splice(0), error: captured.error.splice(0) };
      return out;
    },
  };
}

/** A thrown error as data (`ToolInputError: path required` → {name, message}). */
export function errorRecord(err) {
  return { name: err?.name ?? "Error", message: String(err?.message ?? err) };
}
