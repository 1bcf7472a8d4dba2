/** The call walk (bench/walk.ts, issue #37) on a three-file program whose walk is known by hand. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { walkFrom } from "../../bench/walk.ts";

const root = mkdtempSync(join(tmpdir(), "walk-"));
after(() => rmSync(root, { recursive: true, force: true }));

const files: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { module: "NodeNext", strict: true, noEmit: true, allowImportingTsExtensions: true, types: [] },
    include: ["*.ts"],
  }),
  "a.ts": [
    'import { one, three } from "./b.ts";',
    'import type { Port } from "./c.ts";',
    "export function start(port: Port): number {",
    "  return one() + three() + port.read() + one();",
    "}",
  ].join("\n"),
  "b.ts": [
    'import { two } from "./c.ts";',
    "export function one(): number {",
    "  return two();",
    "}",
    "export const three = (): number => [1].map((x) => x + 1).length;",
  ].join("\n"),
  "c.ts": [
    "export interface Port {",
    "  read(): number;",
    "}",
    "export function two(): number {",
    "  return 2;",
    "}",
  ].join("\n"),
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);

const shape = (depth: number) =>
  walkFrom({ root, from: "start", depth }).places.map(
    (p) => `${p.depth} ${p.file}:${p.line} ${p.name}${p.seen ? " seen" : ""}${p.returnInto ? " return" : ""}`,
  );

test("the walk follows calls in source order, into the port's declaration only, and counts each return into a file left", () => {
  assert.deepEqual(shape(3), [
    "0 a.ts:3 start",
    "1 b.ts:2 one",
    "2 c.ts:4 two",
    "1 b.ts:5 three return", // b → c → b: back into a file left
    "1 c.ts:2 Port.read return", // the interface's member, its implementations not guessed
    "1 b.ts:2 one seen return", // a new call site of a function already expanded: listed, not expanded again
  ]);
  const walk = walkFrom({ root, from: "start", depth: 3 });
  assert.deepEqual([walk.places.length, walk.files, walk.returns, walk.external], [6, 3, 3, 1]); // external: Array.map
});

test("functions at the last depth are listed but their calls are not followed", () => {
  assert.deepEqual(shape(1), [
    "0 a.ts:3 start",
    "1 b.ts:2 one",
    "1 b.ts:5 three",
    "1 c.ts:2 Port.read",
    "1 b.ts:2 one return",
  ]);
});

test("a start that names no function is refused with the reason", () => {
  assert.throws(() => walkFrom({ root, from: "missing", depth: 3 }), /0 start functions for missing/);
});
