/** Log excerpts made safe (shared/why/log-mask.ts): bounded, control characters out, every secret masked. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { EXCERPT_BYTES, EXCERPT_LINES, MASK, maskedExcerpt } from "../../shared/why/log-mask.ts";

const bytes = (text: string) => Buffer.from(text, "utf8");

test("a planted Secret value of the release and credential-shaped strings never pass", () => {
  const planted = "s3cr3t-db-pa55word";
  const log = [
    `connecting with ${planted} to db`,
    "AWS key AKIAIOSFODNN7EXAMPLE in env",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Authorization: Bearer abcdefghijklmnop.qrstuvwx",
    "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "password=hunter22 and api_key: 'abc123xyz'",
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEA7",
    "-----END RSA PRIVATE KEY-----",
    "panic: config not found",
  ].join("\n");
  const excerpt = maskedExcerpt(bytes(log), [planted, "1"]);
  const text = excerpt.lines.join("\n");
  for (const secret of [
    planted,
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI",
    "abcdefghijklmnop",
    "eyJhbGciOiJIUzI1NiJ9",
    "hunter22",
    "abc123xyz",
    "MIIEowIBAAKCAQEA7",
  ]) {
    assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  }
  assert.match(text, /connecting with \*\*\*\* to db/);
  assert.match(text, /password=\*\*\*\*/);
  assert.match(text, /Bearer \*\*\*\*/);
  assert.match(text, /panic: config not found$/);
  // A value too short to mask by value ("1") does not blank the log.
  assert.ok(!text.includes(`${MASK}${MASK}`));
});

test("ANSI escapes, controls and bidi overrides removed; binary and huge logs bounded", () => {
  const colour = maskedExcerpt(bytes("\u001b[31mERROR\u001b[0m \u001b]0;title\u0007boom\r\n\u202etxt.exe"), []);
  assert.deepEqual(colour.lines, ["ERROR boom", "txt.exe"]);
  const binary = maskedExcerpt(
    Uint8Array.from({ length: 4096 }, (_, i) => (i * 37) % 256),
    [],
  );
  assert.deepEqual(binary.lines, ["(binary output, not shown)"]);
  const huge = Buffer.alloc(100 * 1024 * 1024, "line of log output\n");
  const excerpt = maskedExcerpt(huge, []);
  assert.equal(excerpt.lines.length, EXCERPT_LINES);
  assert.equal(excerpt.truncated, true);
  assert.ok(excerpt.lines.join("\n").length <= EXCERPT_BYTES);
});
