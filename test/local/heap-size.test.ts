/**
 * npm start's heap policy (local/heap-size.ts, issue #25 item 6): the same bursts of short-lived objects (16
 * statuses' worth live at a time, as under 200 clients) leave the heap and the RSS far smaller with it than with
 * V8's default growth, which kept about three times the heap in use. Two child processes, memory compared as a
 * ratio (never a time).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const HEAP_SIZE = fileURLToPath(new URL("../../local/heap-size.ts", import.meta.url));

const BURSTS = `
const live = [];
for (let round = 0; round < 30; round++) {
  const batch = [];
  for (let i = 0; i < 40000; i++) batch.push({ name: "cell-" + round + "-" + i, cells: [i, String(i), { x: i }] });
  live.push(batch);
  if (live.length > 12) live.shift();
  await new Promise((resolve) => setImmediate(resolve));
}
live.length = 0;
const { total_heap_size } = (await import("node:v8")).getHeapStatistics();
process.stdout.write(JSON.stringify({ heap: total_heap_size, rss: process.memoryUsage().rss }));
`;

function measure(withPolicy: boolean): { heap: number; rss: number } {
  const args = [...(withPolicy ? ["--import", HEAP_SIZE] : []), "--input-type=module", "-e", BURSTS];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8", timeout: 120_000 }));
}

test("npm start's heap policy keeps the heap and RSS of the same load far below V8's default growth", () => {
  const grown = measure(false);
  const bounded = measure(true);
  const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;
  const detail = `heap ${mb(grown.heap)} -> ${mb(bounded.heap)}, RSS ${mb(grown.rss)} -> ${mb(bounded.rss)}`;
  assert.ok(bounded.heap < grown.heap * 0.7, detail);
  assert.ok(bounded.rss < grown.rss * 0.8, detail);
});

test("npm start imports the heap policy before anything else, so it applies to every allocation", () => {
  const start = readFileSync(new URL("../../local/start.ts", import.meta.url), "utf8");
  const firstImport = /^import\b.*$/m.exec(start)?.[0];
  assert.equal(firstImport, 'import "./heap-size.ts";');
});
