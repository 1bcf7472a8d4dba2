/** bin/lib/flags.ts: helm's pflag rules for every command (the real helm is compared in test/fidelity/helm-bytes). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFlags, parseGoInt } from "../bin/lib/flags.ts";
import { withoutGroupNames } from "../shared/input/go-regexp.ts";
import { compileNameFilter } from "../shared/usecases/helm-list.ts";
import { runCli } from "./support/cli.ts";

const options = {
  namespace: { type: "string", short: "n" },
  at: { type: "string" },
  max: { type: "string", short: "m", int: true },
  date: { type: "boolean", short: "d" },
  reverse: { type: "boolean", short: "r" },
  cluster: { type: "string", default: "local" },
  label: { type: "string", multiple: true },
} as const;
const parse = (...args: string[]) => parseFlags(args, options, true);

test("a value flag takes the next word whatever it is; =, grouped shorthands, -- and positionals anywhere", () => {
  assert.equal(parse("--at", "-2h").values.at, "-2h");
  assert.equal(parse("--max", "-1").values.max, "-1");
  assert.equal(parse("-m", "-0x1").values.max, "-1");
  assert.deepEqual(parse("-n=ns", "-nother").values.namespace, "other", "the last one wins");
  assert.equal(parse("-n=ns").values.namespace, "ns");
  assert.equal(parse("-m=2").values.max, "2");
  assert.deepEqual([parse("-dr").values.date, parse("-dr").values.reverse], [true, true]);
  assert.equal(parse("-dm3").values.max, "3");
  assert.equal(parse("--date=false").values.date, false);
  assert.equal(parse("-d=0").values.date, false);
  assert.equal(parse().values.cluster, "local");
  assert.deepEqual(parse("--label", "a", "--label=b").values.label, ["a", "b"]);
  assert.deepEqual(parse("x", "-d", "y", "--", "-n", "--max").positionals, ["x", "y", "-n", "--max"]);
  assert.deepEqual(parse("-", "").positionals, ["-", ""]);
});

test("integer flags in Go's syntax, kept as decimal text", () => {
  for (const [text, value] of [
    ["0x2", "2"],
    ["0X1f", "31"],
    ["0b10", "2"],
    ["0o17", "15"],
    ["010", "8"],
    ["0", "0"],
    ["1_0", "10"],
    ["0x_1f", "31"],
    ["-0b1", "-1"],
    ["+7", "7"],
    ["9223372036854775807", "9223372036854775807"],
    ["-9223372036854775808", "-9223372036854775808"],
  ]) {
    assert.equal(parse("-m", text).values.max, value, text);
  }
  for (const text of ["", "2.0", "08", "0x", "1__0", "_1", "1_", "0b2", "1e3", " 1", "0x1g", "--"]) {
    assert.deepEqual(parseGoInt(text), { error: "invalid syntax" }, text);
  }
  for (const text of ["9223372036854775808", "-9223372036854775809", "99999999999999999999999"]) {
    assert.deepEqual(parseGoInt(text), { error: "value out of range" }, text);
  }
});

test("pflag's error texts", () => {
  const refused = (args: string[], message: string) =>
    assert.throws(() => parseFlags(args, options, false), { message }, args.join(" "));
  refused(["--all"], "unknown flag: --all");
  refused(["--all=1"], "unknown flag: --all");
  refused(["-x"], "unknown shorthand flag: 'x' in -x");
  refused(["-dx"], "unknown shorthand flag: 'x' in -x");
  refused(["-d="], "unknown shorthand flag: '=' in -=");
  refused(["--max"], "flag needs an argument: --max");
  refused(["-m"], "flag needs an argument: 'm' in -m");
  refused(["---max"], "bad flag syntax: ---max");
  refused(["--=x"], "bad flag syntax: --=x");
  refused(
    ["-m", "2.0"],
    'invalid argument "2.0" for "-m, --max" flag: strconv.ParseInt: parsing "2.0": invalid syntax',
  );
  refused(
    ["--date=maybe"],
    'invalid argument "maybe" for "-d, --date" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
  );
  refused(["extra"], 'unexpected argument "extra": this command takes none');
});

test("Go's regexp takes a group name twice; names change nothing that matches", () => {
  assert.equal(withoutGroupNames("(?P<a>x)(?<a>y)"), "(x)(y)");
  assert.equal(
    withoutGroupNames("[(?P<a>]\\(?P<a>x\\)\\Q(?P<a>\\E[]](?P<b>z)"),
    "[(?P<a>]\\(?P<a>x\\)\\Q(?P<a>\\E[]](z)",
  );
  assert.equal(withoutGroupNames("[[:alpha:](?P<a>](?P<a>y)"), "[[:alpha:](?P<a>](y)");
  const filter = compileNameFilter("(?P<v>de)mo|(?P<v>we)b");
  assert.deepEqual(
    ["demo", "web", "other"].map((name) => filter.test(name)),
    [true, true, false],
  );
  assert.throws(() => compileNameFilter("(?P<v>a)(?P<v>"), /error parsing regexp: missing closing \)/);
});

test("status --at -2h reaches the snapshot store (node:util's parseArgs refused it as an ambiguous flag)", async () => {
  const env = {
    HELM_STATUS_STORE: "aws",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "x",
    AWS_SECRET_ACCESS_KEY: "x",
    // A closed port: the command gets as far as asking the store.
    AWS_ENDPOINT_URL_DYNAMODB: "http://127.0.0.1:1",
  };
  for (const at of [["--at", "-2h"], ["--at=-2h"]]) {
    const run = await runCli(["status", "api", "-n", "shop", "--cluster", "c", ...at], env);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /^Error: cannot reach DynamoDB at http:\/\/127\.0\.0\.1:1/);
  }
});
