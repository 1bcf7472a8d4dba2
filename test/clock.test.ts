/**
 * One clock (docs/architecture.md): shared/ gets time only from an injected `Clock` (shared/ports.ts), whose
 * `systemClock` is the one place that reads the wall clock. Checked on the syntax tree (comments and strings do
 * not count): `Date.now` (called or passed along), `new Date()` and `Date()` without arguments.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const THE_CLOCK = "shared/ports.ts";

/** Every wall-clock read in `source`, as `file:line: text`. */
function wallClockReads(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const isDate = (node: ts.Node) => ts.isIdentifier(node) && node.text === "Date";
  const visit = (node: ts.Node): void => {
    const read =
      (ts.isPropertyAccessExpression(node) && isDate(node.expression) && node.name.text === "now") ||
      ((ts.isNewExpression(node) || ts.isCallExpression(node)) &&
        isDate(node.expression) &&
        (node.arguments?.length ?? 0) === 0);
    if (read) {
      const { line } = tree.getLineAndCharacterOfPosition(node.getStart(tree));
      found.push(`${file}:${line + 1}: ${node.getText(tree)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

test("shared/ reads the wall clock only in the one Clock implementation", () => {
  const reads: string[] = [];
  let clockReads = 0;
  for (const entry of readdirSync(join(ROOT, "shared"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const path = join(entry.parentPath, entry.name);
    const file = relative(ROOT, path);
    const found = wallClockReads(file, readFileSync(path, "utf8"));
    if (file === THE_CLOCK) clockReads = found.length;
    else reads.push(...found);
  }
  assert.deepEqual(reads, [], "inject a Clock (shared/ports.ts) instead");
  assert.equal(clockReads, 1, `${THE_CLOCK}'s systemClock is the one wall-clock read`);
});

test("the check sees every form of a wall-clock read, and not a date made from a value", () => {
  const reads = wallClockReads(
    "x.ts",
    [
      "const a = Date.now();",
      "const b = options.now ?? Date.now;",
      "const c = new Date();",
      "const d = Date();",
      "const e = new Date(0);",
      "const f = Date.parse('2026-01-01');",
      "// Date.now() in a comment",
      "const g = 'new Date()';",
    ].join("\n"),
  );
  assert.deepEqual(reads, ["x.ts:1: Date.now", "x.ts:2: Date.now", "x.ts:3: new Date()", "x.ts:4: Date()"]);
});
