/**
 * The layering rules of docs/architecture.md, checked on every relative import (static, re-export and
 * dynamic) of the product's TypeScript and the bench: a new file that breaks one fails here with the offending
 * line. Inside shared/, the rooms (its folders) import only rooms below them in docs/architecture.md's table (so
 * they form no cycle): each can be read, tested and moved knowing only the rooms below it. Inside any folder of
 * the product, the files form no import cycle either (local/sim/ stands alone and keeps its own rules).
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

/** The rooms of shared/ top to bottom, as docs/architecture.md's table lists them. */
function documentedRooms(): string[] {
  const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
  const section = doc.slice(doc.indexOf("## The rooms of `shared/`"));
  return [...section.slice(0, section.indexOf("\n## ", 1)).matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((m) => m[1]);
}

/** Every import from a room to one the documented order puts above it (or to a room the table does not list). */
function roomOrderViolations(all: Edge[], order: readonly string[]): string[] {
  return all.flatMap(({ from, to }) => {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (!a || !b || a === b) return [];
    if (!order.includes(a) || !order.includes(b))
      return [`${from} -> ${to}: a room docs/architecture.md does not list`];
    return order.indexOf(b) < order.indexOf(a)
      ? [`${from} -> ${to}: ${b}/ is above ${a}/ in the documented order`]
      : [];
  });
}

test("the rooms of shared/ are the documented ones, and each imports only rooms below it in the documented order", () => {
  const order = documentedRooms();
  assert.ok(order.length > 10, `only ${order.length} rooms found in docs/architecture.md: is the pattern still right?`);
  const folders = readdirSync(join(ROOT, "shared"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  assert.deepEqual([...folders].sort(), [...order].sort(), "every folder of shared/ has its row, in order");
  assert.deepEqual(roomOrderViolations(edges(), order), []);
});

test("the order check names an import that climbs", () => {
  const order = ["usecases", "kube", "input"];
  assert.deepEqual(roomOrderViolations([{ from: "shared/usecases/a.ts", to: "shared/kube/b.ts" }], order), []);
  assert.match(roomOrderViolations([{ from: "shared/input/a.ts", to: "shared/kube/b.ts" }], order)[0], /above/);
  assert.match(roomOrderViolations([{ from: "shared/new/a.ts", to: "shared/kube/b.ts" }], order)[0], /not list/);
});

/** Every cycle of imports between the files of one folder (Tarjan's strongly connected sets of more than one). */
function folderCycles(all: Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of all) {
    if (dirname(from) !== dirname(to) || from.startsWith("local/sim/")) continue;
    next.set(from, [...(next.get(from) ?? []), to]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (stack.includes(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members = stack.splice(stack.indexOf(file));
    if (members.length > 1)
      cycles.push(
        `${dirname(file)}: ${members
          .map((f) => f.split("/").pop())
          .sort()
          .join(" <-> ")}`,
      );
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return cycles.sort();
}

test("no import cycle between the files of one folder", () => {
  assert.deepEqual(folderCycles(edges()), []);
});

test("the folder check finds a cycle, and only inside one folder", () => {
  const cycles = folderCycles([
    { from: "shared/chatops/access.ts", to: "shared/chatops/platforms.ts" },
    { from: "shared/chatops/platforms.ts", to: "shared/chatops/answer.ts" },
    { from: "shared/chatops/answer.ts", to: "shared/chatops/access.ts" },
    { from: "shared/kube/a.ts", to: "shared/input/b.ts" },
    { from: "shared/input/b.ts", to: "shared/kube/a.ts" },
  ]);
  assert.deepEqual(cycles, ["shared/chatops: access.ts <-> answer.ts <-> platforms.ts"]);
});
