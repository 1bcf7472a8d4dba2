/** shared/render: the one JSON and YAML policy, checked against bytes the real helm 4.1.4 wrote. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  OUTPUT_FORMATS,
  parseOutputFormat,
  renderJson,
  renderStructured,
  renderYaml,
} from "../../shared/render/index.ts";
import { compareKeys, goNumber } from "../../shared/render/yaml.ts";
import { resolvesToNonString } from "../../shared/yaml/scalars.ts";

const captures = new URL("../fixtures/helm-v4-captures/", import.meta.url);
const descriptions = JSON.parse(
  readFileSync(new URL("./fixtures/helm-history-descriptions.json", import.meta.url), "utf8"),
) as { cases: { json: string; yaml: string }[] };

test("helm history -o yaml of 38 tricky descriptions: the same bytes from helm's own JSON", () => {
  for (const { json, yaml } of descriptions.cases) {
    assert.equal(renderYaml(JSON.parse(json)), yaml, json);
    assert.equal(renderJson(JSON.parse(json)), `${json}\n`, "and the JSON policy gives helm's JSON back");
  }
});

test("helm status -o yaml of the demo capture: byte for byte", () => {
  const json = JSON.parse(readFileSync(new URL("helm-status-output-demo.json", captures), "utf8"));
  assert.equal(renderYaml(json), readFileSync(new URL("helm-status-output-demo.yaml", captures), "utf8"));
});

test("YAML 1.1 scalars are quoted; go-yaml's styles for the rest", () => {
  for (const value of [
    "yes",
    "On",
    "n",
    "~",
    "null",
    "",
    "2026-01-01",
    "2026-1-2 3:04:05",
    "1:30",
    "0x1F",
    "1_000",
    "+1",
    ".5",
    "1e3",
    "0b101",
    "08",
  ]) {
    assert.ok(resolvesToNonString(value), value);
    assert.equal(renderYaml({ v: value }), `v: "${value}"\n`, value);
  }
  for (const value of ["yes please", "2026-02-30", "1e400", "<<", "version-1", "x:y"]) {
    assert.equal(renderYaml({ v: value }), `v: ${value}\n`, value);
  }
  assert.equal(renderYaml({ v: "a: b" }), "v: 'a: b'\n");
  assert.equal(renderYaml({ v: "it's 'quoted'" }), "v: it's 'quoted'\n");
  assert.equal(renderYaml({ v: "'x'" }), "v: '''x'''\n");
  assert.equal(renderYaml({ v: "a \nb" }), 'v: "a \\nb"\n', "a line ending in a space: double-quoted, not >-");
  assert.equal(renderYaml({ v: "a\n  b\n" }), "v: |\n  a\n    b\n");
  assert.equal(renderYaml({ v: " a\nb" }), "v: |2-\n   a\n  b\n");
  assert.equal(renderYaml({ v: "x\n\n" }), "v: |+\n  x\n\n");
  // Keys resolve like values; a multi-line key is not a simple key (go-yaml's check_simple_key).
  assert.equal(renderYaml({ yes: 1, y: 2, "multi\nline": 3 }), '? |-\n  multi\n  line\n: 3\n"y": 2\n"yes": 1\n');
  assert.equal(renderYaml({ e: "😀" }), 'e: "\\U0001F600"\n', "go-yaml escapes what it does not print");
});

test("every YAML 1.1 word go-yaml v2 resolves is quoted, as a value and as a key (issue #39: false/False/FALSE)", () => {
  const words = [
    ..."y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF".split(" "),
    ..."~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF".split(" "),
  ];
  for (const word of words) {
    assert.equal(renderYaml({ v: word }), `v: "${word}"\n`, word);
    assert.equal(renderYaml({ [word]: 1 }), `"${word}": 1\n`, `key ${word}`);
  }
  // Words that only look like them stay plain (resolve() looks the whole word up).
  for (const word of ["falsey", "f", "F", "Fals", "nan", "Nan", "NaN", "inf", "yess", "offset"]) {
    assert.equal(renderYaml({ v: word }), `v: ${word}\n`, word);
  }
});

test("go-yaml's key order: digit runs as int64 (19 digits wrap around), Nd digits, code points", () => {
  assert.equal(renderYaml({ "-": 0, "9223372036854775808": 0 }), "\"9223372036854775808\": 0\n'-': 0\n");
  assert.equal(renderYaml({ "-": 0, "9223372036854775807": 0 }), "'-': 0\n\"9223372036854775807\": 0\n");
  assert.ok(compareKeys("a\u{1F600}", "a\uFFFF") > 0, "by code point, not UTF-16");
  assert.ok(compareKeys("x\u0663", "x2") > 0, "ARABIC-INDIC DIGIT THREE is a digit worth 1632 - 48");
});

test("structure: sorted keys (go-yaml's natural order), unindented sequences, empty collections", () => {
  assert.equal(
    renderYaml({ b: [1, { y: null, x: true }, [2, 3], []], a: {}, item10: 1, item9: 2, "a-b": 0, A_: 0, _a: 0 }),
    '_a: 0\nA_: 0\na: {}\na-b: 0\nb:\n- 1\n- x: true\n  "y": null\n- - 2\n  - 3\n- []\nitem9: 2\nitem10: 1\n',
  );
  assert.equal(renderYaml([]), "[]\n");
  assert.equal(
    renderYaml({ nums: [0.5, 1234567.5, 1e21, -3, 1e-7, 100] }),
    "nums:\n- 0.5\n- 1.2345675e+06\n- 1e+21\n- -3\n- 1e-07\n- 100\n",
  );
  assert.equal(goNumber(2 ** 53), "9007199254740992");
  assert.ok(compareKeys("item9", "item10") < 0 && compareKeys("_", "A") < 0 && compareKeys("a", "ab") < 0);
  assert.equal(renderYaml({ skipped: undefined, kept: 1 }), "kept: 1\n", "through JSON, like sigs.k8s.io/yaml");
});

test("long lines fold at the first space past column 80, never inside a word", () => {
  const words = "word ".repeat(30).trim();
  const folded = renderYaml({ key: words });
  for (const line of folded.split("\n").slice(0, -2)) assert.ok(line.length > 80 && line.length <= 86, line);
  assert.equal(folded.replace(/\n {2}/g, " "), `key: ${words}\n`);
  assert.equal(renderYaml({ url: "x".repeat(200) }), `url: ${"x".repeat(200)}\n`);
});

test("JSON like Go's encoder: compact, one newline, HTML-safe escapes; formats in one place", () => {
  assert.equal(renderJson({ a: "<b> & c\u2028" }), '{"a":"\\u003cb\\u003e \\u0026 c\\u2028"}\n');
  // Integer-like keys (a Go map's: `--set-json '{"2":..}'`) in Go's byte order, not JavaScript's numeric-first one.
  const config = JSON.parse('{"-1":"a","10":"b","2":"c","9":{"b":1,"01":2,"1":3},"x":[{"3":0,"20":1}]}');
  assert.equal(renderJson(config), '{"-1":"a","10":"b","2":"c","9":{"01":2,"1":3,"b":1},"x":[{"20":1,"3":0}]}\n');
  assert.equal(
    renderJson({ b: 1, a: { when: new Date(0), gone: undefined, 1: 0 } }),
    `{"b":1,"a":{"1":0,"when":"1970-01-01T00:00:00.000Z"}}\n`,
  );
  assert.deepEqual([...OUTPUT_FORMATS], ["table", "json", "yaml"]);
  assert.equal(parseOutputFormat(undefined), "table");
  assert.throws(() => parseOutputFormat("xml"), /invalid argument "xml" for "-o, --output" flag: invalid format type$/);
  assert.equal(renderStructured({ a: 1 }, "yaml"), "a: 1\n");
});
