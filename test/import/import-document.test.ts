import assert from "node:assert/strict";
import { test } from "node:test";
import { importObjectsOf, parseImportDocument } from "../../shared/release/import-document.ts";

const auto = { syntax: "auto" as const, where: "stdin" };

test("invalid UTF-8 (bytes or lone surrogates) is refused, not decoded to U+FFFD", () => {
  const bytes = Buffer.concat([
    Buffer.from('{"apiVersion":"v1","kind":"List","items":[],"x":"'),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('"}'),
  ]);
  assert.throws(() => parseImportDocument(bytes, auto), {
    code: "InvalidImportDocument",
    message: /stdin is not valid UTF-8/,
  });
  assert.throws(() => parseImportDocument('{"kind":"List","items":[],"x":"\ud800"}', auto), /not valid UTF-8/);
  // A UTF-8 BOM and multi-byte text are fine.
  const ok = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from('{"apiVersion":"v1","kind":"List","items":[],"note":"é✓"}'),
  ]);
  assert.deepEqual(parseImportDocument(ok, auto), { apiVersion: "v1", kind: "List", items: [], note: "é✓" });
});

test("a document with no Kubernetes object is refused; an empty List is a valid no-op", () => {
  for (const text of ["[1,2,3]", "{}", "[]", '"text"', "42", "null", "just some words", "[{}, {}]"]) {
    assert.throws(() => parseImportDocument(text, auto), { message: /not a Kubernetes object/ }, text);
  }
  assert.deepEqual(importObjectsOf({ apiVersion: "v1", kind: "List", items: [] }), []);
  assert.throws(() => importObjectsOf({ kind: "SecretList" }), /has no items list/);
  // Mixed: the Kubernetes objects count, the rest is skipped later by the use case.
  assert.equal(importObjectsOf([{ kind: "Secret" }, 1]).length, 2);
});

test("CLI input starting with { is tried as YAML flow too; input invalid as both names both faults, never the input", () => {
  const flow = "{apiVersion: v1, kind: List, items: []}";
  assert.deepEqual(parseImportDocument(flow, auto), { apiVersion: "v1", kind: "List", items: [] });
  // Strict JSON media type: YAML flow is not JSON.
  assert.throws(
    () => parseImportDocument(flow, { syntax: "json", where: "the request body" }),
    /body is not valid JSON/,
  );
  assert.throws(
    () => parseImportDocument('{"kind": "Secret", "data": {"password": hunter2}', auto),
    (error: Error) => {
      assert.match(error.message, /^stdin is not valid JSON: .* \(nor YAML: .*\)$/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    },
  );
});

test("a YAML alias bomb or absurd nesting in the import body is a 400-style error, not a hang or a crash", () => {
  const bomb = [
    "a: &a [x, x, x, x, x, x, x, x, x]",
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "kind: List",
    "items: [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
  ].join("\n");
  assert.throws(() => parseImportDocument(bomb, { syntax: "yaml", where: "the request body" }), {
    code: "InvalidImportDocument",
    message: /alias bomb/,
  });
  // JSON 10,000 levels deep parses (V8's parser does not recurse); the objects are bounded later, by name.
  const deep = `{"kind":"List","items":[{"kind":"Secret","x":${"[".repeat(10_000)}${"]".repeat(10_000)}}]}`;
  assert.equal((parseImportDocument(deep, auto) as { items: unknown[] }).items.length, 1);
});
