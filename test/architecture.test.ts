/**
 * The layering rules of docs/architecture.md, checked on every relative import (static, re-export and
 * dynamic) of the product's TypeScript and the bench: a new file that breaks one fails here with the offending
 * line. Inside shared/, the rooms (its folders) form no cycle: each can be read, tested and moved knowing only
 * the rooms below it.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

interface Edge {
  from: string;
  to: string;
  /** `import type …` / `export type …`: erased when compiled, so it brings no code along. */
  typeOnly?: boolean;
}

/** An IMPORT match that is `import type …` / `export type …` (not `import { type A }`: that one stays, empty). */
function isTypeOnly(statement: string): boolean {
  return /^[\s;]*(?:import|export)\s+type\s/.test(statement);
}

function edges(): Edge[] {
  const found: Edge[] = [];
  for (const top of ["shared", "functions", "bin", "local", "bench", "dashboard"]) {
    for (const entry of readdirSync(join(ROOT, top), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || entry.parentPath.includes("node_modules")) continue;
      const file = join(entry.parentPath, entry.name);
      const from = relative(ROOT, file);
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const spec = match[1] ?? match[2];
        if (!spec.startsWith(".")) continue;
        found.push({ from, to: relative(ROOT, normalize(join(dirname(file), spec))), typeOnly: isTypeOnly(match[0]) });
      }
    }
  }
  return found;
}

/** Why `edge` breaks a rule, or undefined. */
function violation({ from, to, typeOnly }: Edge): string | undefined {
  const [source, sourceFn] = from.split("/");
  const [target, targetFn] = to.split("/");
  if (source === "shared" && ["functions", "bin", "local"].includes(target)) {
    return "shared/ is the core: it imports none of functions/, bin/, local/";
  }
  if (source === "functions" && ["bin", "local"].includes(target)) return "functions/ imports none of bin/, local/";
  if (from.startsWith("functions/_shared/") && target === "functions" && targetFn !== "_shared") {
    return "functions/_shared/ is every function's shell: it imports no function's folder";
  }
  if (source === "functions" && target === "functions" && targetFn !== sourceFn && targetFn !== "_shared") {
    return "a function imports only its own folder and functions/_shared/, never another function";
  }
  if (source === "bin" && target === "functions") return "bin/ (the CLI) imports no Lambda function: use shared/";
  if (["bench", "local", "bin", "functions", "shared"].includes(source) && target === "test") {
    return "nothing outside test/ imports a test file: tooling both use lives in local/";
  }
  if (from.startsWith("local/sim/") && !to.startsWith("local/sim/")) return "local/sim/ stands alone";
  // `import type` from shared/: the API's answer shapes, one owner; erased by esbuild, so no core code in the bundle
  // (verbatimModuleSyntax in dashboard/tsconfig.json keeps `import { type X }`, a side-effect import: not allowed).
  if (source === "dashboard" && target !== "dashboard" && !(target === "shared" && typeOnly)) {
    return "dashboard/ (the browser client) imports only dashboard/, npm packages and `import type` from shared/";
  }
  const builds = (source === "local" || source === "bench") && to === "dashboard/build.ts";
  if (target === "dashboard" && source !== "dashboard" && !builds) {
    return "nothing ships the browser client's code: only local/ and bench/ may import dashboard/build.ts (to build it)";
  }
  return undefined;
}

test("every import follows the layering rules", () => {
  const all = edges();
  assert.ok(all.length > 300, `only ${all.length} imports found: is the pattern still right?`);
  const broken = all.flatMap((edge) => {
    const why = violation(edge);
    return why ? [`${edge.from} -> ${edge.to}: ${why}`] : [];
  });
  assert.deepEqual(broken, []);
});

test("a type-only import is told from one that brings code", () => {
  const typeOnly = (line: string) =>
    [...line.matchAll(IMPORT)].map((m) => /^[\s;]*(?:import|export)\s+type\s/.test(m[0]));
  assert.deepEqual(typeOnly('import type { A } from "../x.ts";'), [true]);
  assert.deepEqual(typeOnly('export type { A } from "../x.ts";'), [true]);
  assert.deepEqual(typeOnly('import { type A } from "../x.ts";'), [false]);
  assert.deepEqual(typeOnly('import { A } from "../x.ts";\nimport type { B } from "../y.ts";'), [false, true]);
});

test("the rules catch what they forbid", () => {
  assert.ok(violation({ from: "shared/usecases/x.ts", to: "functions/api/types.ts" }));
  assert.ok(violation({ from: "functions/chatops/handler.ts", to: "functions/api/deps.ts" }));
  assert.ok(violation({ from: "functions/api/handler.ts", to: "bin/lib/run.ts" }));
  assert.ok(violation({ from: "local/sim/cli.ts", to: "shared/errors.ts" }));
  assert.ok(violation({ from: "dashboard/src/api.ts", to: "shared/errors.ts" }));
  assert.equal(violation({ from: "dashboard/src/api.ts", to: "shared/usecases/fleet.ts", typeOnly: true }), undefined);
  assert.ok(violation({ from: "dashboard/src/api.ts", to: "functions/api/types.ts", typeOnly: true }));
  assert.ok(violation({ from: "functions/api/app.ts", to: "dashboard/src/route.ts" }));
  assert.equal(violation({ from: "local/start.ts", to: "dashboard/build.ts" }), undefined);
  assert.equal(violation({ from: "functions/audit/worker.ts", to: "functions/_shared/runtime.ts" }), undefined);
  assert.equal(violation({ from: "bin/lib/store.ts", to: "local/dynamodb-local.ts" }), undefined);
  assert.ok(violation({ from: "bin/commands/status.ts", to: "functions/_shared/runtime.ts" }));
  assert.ok(violation({ from: "functions/_shared/shell.ts", to: "functions/api/deps.ts" }));
  assert.ok(violation({ from: "bench/status.bench.ts", to: "test/status/helm-oracle.ts" }));
  assert.equal(violation({ from: "bench/status.bench.ts", to: "local/helm-oracle.ts" }), undefined);
});

/** The folder of shared/ a file is in (`kube`), or undefined for a file outside shared/'s folders. */
function roomOf(file: string): string | undefined {
  const parts = file.split("/");
  return parts[0] === "shared" && parts.length > 2 ? parts[1] : undefined;
}

/** Every cycle between rooms of shared/ (strongly connected sets of more than one room), each with its imports. */
function roomCycles(all: Edge[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of all) {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (a && b && a !== b) next.set(a, (next.get(a) ?? new Set()).add(b));
  }
  const reach = (start: string) => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      for (const room of next.get(stack.pop()!) ?? []) if (!seen.has(room) && seen.add(room)) stack.push(room);
    }
    return seen;
  };
  const reachable = new Map([...next.keys()].map((room) => [room, reach(room)]));
  const cycles = new Set<string>();
  for (const [room, seen] of reachable) {
    const cycle = [...seen].filter((other) => reachable.get(other)?.has(room)).sort();
    if (cycle.length > 1 || seen.has(room)) cycles.add([...new Set([room, ...cycle])].sort().join(" <-> "));
  }
  return [...cycles].map((cycle) => {
    const rooms = cycle.split(" <-> ");
    const through = all.filter(
      ({ from, to }) =>
        rooms.includes(roomOf(from) ?? "") && rooms.includes(roomOf(to) ?? "") && roomOf(from) !== roomOf(to),
    );
    return `${cycle}: ${through.map(({ from, to }) => `${from} -> ${to}`).join("; ")}`;
  });
}

test("no cycle between the rooms (folders) of shared/", () => {
  assert.deepEqual(roomCycles(edges()), []);
});

test("the cycle check finds a cycle through several rooms", () => {
  const cycle = roomCycles([
    { from: "shared/chatops/answer.ts", to: "shared/usecases/list.ts" },
    { from: "shared/usecases/audit.ts", to: "shared/history/model.ts" },
    { from: "shared/history/webhook.ts", to: "shared/chatops/post.ts" },
    { from: "shared/history/model.ts", to: "shared/errors.ts" },
  ]);
  assert.equal(cycle.length, 1);
  assert.match(cycle[0], /^chatops <-> history <-> usecases: /);
  assert.deepEqual(roomCycles([{ from: "shared/kube/a.ts", to: "shared/manifest/b.ts" }]), []);
});
