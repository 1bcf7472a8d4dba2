/** Parse failures say what and where, never a character of the input (it is release Secrets and values). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { jsonErrorMessage, QUIET_YAML, yamlErrorMessage } from "../../shared/input/parse-errors.ts";

const SECRET = "s3cr3tValue";

function jsonFailure(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return jsonErrorMessage(error);
  }
  throw new Error(`parsed: ${text}`);
}

function yamlFailure(text: string): string {
  try {
    parse(text, QUIET_YAML);
  } catch (error) {
    return yamlErrorMessage(error);
  }
  throw new Error(`parsed: ${text}`);
}

test("JSON: V8's quoted excerpt and offending token are dropped; positions are kept", () => {
  const cases: [string, RegExp][] = [
    [`{"k": "a", "pw": ${SECRET}}`, /^unexpected character \(/],
    [`{"pw": "${SECRET}", "n": Infinity}`, /^unexpected character \(/],
    [`{"pw": "${SECRET}" x}`, /^Expected ',' or '}' after property value in JSON at position 21/],
    [`{"pw": "${SECRET}`, /^Unterminated string in JSON at position/],
    [`{"pw": "${SECRET}"}}`, /^Unexpected non-whitespace character after JSON at position/],
  ];
  for (const [text, expected] of cases) {
    const message = jsonFailure(text);
    assert.match(message, expected, text);
    assert.doesNotMatch(message, /s3cr3t|"/, text);
  }
});

test("YAML: names, excerpts and single offending characters are dropped; the fault and position are kept", () => {
  const cases: [string, RegExp][] = [
    [`pw: |${SECRET}\n`, /^Block scalar header includes extra characters at line 1, column 6$/],
    [`pw: *${SECRET}\n`, /^Unresolved alias \(the anchor must be set before the alias\)$/],
    [`pw: "${SECRET}\\q"\n`, /^Invalid escape sequence at line 1, column \d+$/],
    [`pw: \`${SECRET}\n`, /^Plain value cannot start with reserved character at line 1, column 5$/],
    [`a:\n  - b\n  c: ${SECRET}\n`, /^All mapping items must start at the same column at line 3, column 1$/],
    [`pw: "${SECRET}\n`, /^Missing closing "quote at line 2, column 1$/],
  ];
  for (const [text, expected] of cases) {
    const message = yamlFailure(text);
    assert.match(message, expected, text);
    assert.doesNotMatch(message, /s3cr3t|3t|\\q|`/, text);
  }
});
