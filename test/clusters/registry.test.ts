import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ClusterRegistryError } from "../../shared/clusters/errors.ts";
import {
  clusterRegistryConfigured,
  loadClusterRegistry,
  parseClusterRegistry,
} from "../../shared/clusters/registry.ts";

const dir = mkdtempSync(join(tmpdir(), "registry-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a JSON list with every field is read as written", () => {
  const text = JSON.stringify([
    {
      name: "prod-eu",
      region: "eu-west-1",
      roleArn: "arn:aws:iam::123456789012:role/ops/helm-status-reader",
      externalId: "ext-123",
      eksEndpoint: "https://eks.eu-west-1.amazonaws.com",
      stsEndpoint: "http://127.0.0.1:4566",
    },
    { name: "dev_1", region: "us-east-1" },
  ]);
  assert.deepEqual(parseClusterRegistry(text, "CLUSTERS"), [
    {
      name: "prod-eu",
      region: "eu-west-1",
      roleArn: "arn:aws:iam::123456789012:role/ops/helm-status-reader",
      externalId: "ext-123",
      eksEndpoint: "https://eks.eu-west-1.amazonaws.com",
      stsEndpoint: "http://127.0.0.1:4566",
    },
    { name: "dev_1", region: "us-east-1" },
  ]);
});

test("a YAML list is accepted, and an empty list is an empty registry", () => {
  const yaml =
    "- name: a\n  region: cn-north-1\n  roleArn: arn:aws-cn:iam::123456789012:role/r\n- {name: b, region: us-gov-west-1}\n";
  assert.deepEqual(
    parseClusterRegistry(yaml, "x").map((e) => e.name),
    ["a", "b"],
  );
  assert.deepEqual(parseClusterRegistry("[]", "x"), []);
});

// One line per malformed case: the input and what the message must say (entry, field, why).
const malformed: [string, string, RegExp][] = [
  ["empty text", "  ", /empty/],
  ["not JSON/YAML", "[{name: a", /not valid JSON or YAML/],
  ["an object, not a list", '{"name":"a","region":"us-east-1"}', /expected a list of clusters/],
  ["a string entry", '["a"]', /entry 0: expected an object/],
  ["missing name", '[{"region":"us-east-1"}]', /entry 0: field "name" is required/],
  ["missing region", '[{"name":"a"}]', /entry 0 \("a"\): field "region" is required/],
  ["name not a string", '[{"name":7,"region":"us-east-1"}]', /field "name" must be a string, got number 7/],
  ["name with a dot", '[{"name":"a.b","region":"us-east-1"}]', /field "name" "a.b" is invalid: an EKS cluster name/],
  ["name too long", `[{"name":"${"a".repeat(101)}","region":"us-east-1"}]`, /field "name" .* is invalid/],
  ["name starting with -", '[{"name":"-a","region":"us-east-1"}]', /field "name" "-a" is invalid/],
  ["bad region", '[{"name":"a","region":"US-EAST-1"}]', /entry 0 \("a"\): field "region" "US-EAST-1" is invalid/],
  ["region without number", '[{"name":"a","region":"us-east"}]', /field "region" "us-east" is invalid/],
  [
    "roleArn of a user",
    '[{"name":"a","region":"us-east-1","roleArn":"arn:aws:iam::123456789012:user/u"}]',
    /field "roleArn" .* is invalid/,
  ],
  [
    "roleArn short account",
    '[{"name":"a","region":"us-east-1","roleArn":"arn:aws:iam::1234:role/r"}]',
    /field "roleArn"/,
  ],
  [
    "externalId without roleArn",
    '[{"name":"a","region":"us-east-1","externalId":"abc"}]',
    /"externalId" is only meaningful with "roleArn"/,
  ],
  [
    "externalId too short",
    '[{"name":"a","region":"us-east-1","roleArn":"arn:aws:iam::123456789012:role/r","externalId":"x"}]',
    /field "externalId" "x" is invalid/,
  ],
  [
    "eksEndpoint not a URL",
    '[{"name":"a","region":"us-east-1","eksEndpoint":"eks.local"}]',
    /field "eksEndpoint" "eks.local" is invalid/,
  ],
  [
    "eksEndpoint plain http remote",
    '[{"name":"a","region":"us-east-1","eksEndpoint":"http://eks.example.com"}]',
    /http:\/\/ only for loopback/,
  ],
  [
    "stsEndpoint with credentials",
    '[{"name":"a","region":"us-east-1","stsEndpoint":"https://u:p@sts.example.com"}]',
    /field "stsEndpoint"/,
  ],
  [
    "stsEndpoint with a query",
    '[{"name":"a","region":"us-east-1","stsEndpoint":"https://sts.example.com/?a=1"}]',
    /field "stsEndpoint"/,
  ],
  ["unknown field", '[{"name":"a","region":"us-east-1","rolearn":"x"}]', /entry 0 \("a"\): unknown field "rolearn"/],
  [
    "duplicate names",
    '[{"name":"a","region":"us-east-1"},{"name":"a","region":"eu-west-1"}]',
    /entry 1 \("a"\): duplicate cluster name, already defined by entry 0/,
  ],
  ["duplicate key", '[{"name":"a","name":"b","region":"us-east-1"}]', /not valid JSON or YAML/],
  [
    "second entry bad",
    '[{"name":"a","region":"us-east-1"},{"name":"b","region":""}]',
    /entry 1 \("b"\): field "region" "" is invalid/,
  ],
];

for (const [label, text, message] of malformed) {
  test(`malformed registry: ${label}`, () => {
    assert.throws(
      () => parseClusterRegistry(text, "CLUSTERS"),
      (error: unknown) => {
        assert.ok(error instanceof ClusterRegistryError, `expected ClusterRegistryError, got ${error}`);
        assert.equal(error.kind, "validation");
        assert.match(error.message, /^CLUSTERS: /);
        assert.match(error.message, message);
        return true;
      },
    );
  });
}

test("loadClusterRegistry reads CLUSTERS, or the file named by CLUSTERS_FILE, not both", () => {
  const file = join(dir, "clusters.yaml");
  writeFileSync(file, "- name: from-file\n  region: eu-west-1\n");
  assert.deepEqual(loadClusterRegistry({ CLUSTERS: '[{"name":"inline","region":"us-east-1"}]' }), [
    { name: "inline", region: "us-east-1" },
  ]);
  assert.deepEqual(loadClusterRegistry({ CLUSTERS_FILE: file }), [{ name: "from-file", region: "eu-west-1" }]);
  assert.deepEqual(loadClusterRegistry({}), []);
  assert.equal(clusterRegistryConfigured({}), false);
  assert.equal(clusterRegistryConfigured({ CLUSTERS_FILE: file }), true);
  assert.throws(() => loadClusterRegistry({ CLUSTERS: "[]", CLUSTERS_FILE: file }), /both CLUSTERS and CLUSTERS_FILE/);
  assert.throws(
    () => loadClusterRegistry({ CLUSTERS_FILE: join(dir, "missing.json") }),
    /CLUSTERS_FILE .*missing\.json: cannot read the file \(ENOENT\)/,
  );
  writeFileSync(file, "- name: bad name\n  region: eu-west-1\n");
  assert.throws(() => loadClusterRegistry({ CLUSTERS_FILE: file }), /CLUSTERS_FILE .*clusters\.yaml: entry 0/);
});

test("endpoint + certificateAuthority: both or neither, a PEM bundle in base64 (string or describe-cluster's {data})", () => {
  const pem = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").toString("base64");
  const [asString] = parseClusterRegistry(
    JSON.stringify([
      {
        name: "c1",
        region: "eu-west-1",
        endpoint: "https://ABC.gr7.eu-west-1.eks.amazonaws.com/",
        certificateAuthority: pem,
      },
    ]),
    "CLUSTERS",
  );
  assert.equal(asString.endpoint, "https://ABC.gr7.eu-west-1.eks.amazonaws.com");
  assert.equal(asString.certificateAuthority, pem);
  const [asObject] = parseClusterRegistry(
    `- name: c1\n  region: eu-west-1\n  endpoint: https://x.eks.amazonaws.com\n  certificateAuthority:\n    data: ${pem}\n`,
    "CLUSTERS",
  );
  assert.equal(asObject.certificateAuthority, pem);
  assert.throws(
    () =>
      parseClusterRegistry(JSON.stringify([{ name: "c1", region: "eu-west-1", endpoint: "https://x" }]), "CLUSTERS"),
    /entry 0 \("c1"\): fields "endpoint" and "certificateAuthority" go together/,
  );
  assert.throws(
    () =>
      parseClusterRegistry(
        JSON.stringify([
          { name: "c1", region: "eu-west-1", endpoint: "https://x", certificateAuthority: "bm90IGEgY2VydA==" },
        ]),
        "CLUSTERS",
      ),
    /field "certificateAuthority" does not decode to a PEM certificate/,
  );
  assert.throws(
    () =>
      parseClusterRegistry(
        JSON.stringify([{ name: "c1", region: "eu-west-1", endpoint: "http://10.0.0.1", certificateAuthority: pem }]),
        "CLUSTERS",
      ),
    /field "endpoint" "http:\/\/10.0.0.1" is invalid/,
  );
});

test("slo: a percentage for every release, or a default and per-release objectives; bad ones stop the start", () => {
  const read = (slo: unknown) =>
    parseClusterRegistry(JSON.stringify([{ name: "eu", region: "eu-west-1", slo }]), "CLUSTERS")[0];
  assert.deepEqual(read("99.5").slo, { default: 0.995 });
  assert.deepEqual(read(99.9).slo, { default: 0.999 });
  assert.deepEqual(read({ default: "99", releases: { "shop/api": "99.95" } }).slo, {
    default: 0.99,
    releases: { "shop/api": 0.9995 },
  });
  assert.deepEqual(read({ releases: { "shop/api": 99.5 } }).slo, { releases: { "shop/api": 0.995 } });
  assert.equal(read(null).slo, undefined);
  const refused: [unknown, RegExp][] = [
    ["lots", /field "slo" "lots" is not a percentage above 0 and below 100/],
    [100, /field "slo" 100 is not a percentage/],
    [{ target: "99" }, /field "slo" has an unknown key "target"/],
    [{ releases: { api: "99" } }, /key "api" is not "namespace\/name"/],
    [{ releases: { "Shop/api": "99" } }, /key "Shop\/api" is not "namespace\/name"/],
    [{ releases: { "shop/api": "0" } }, /field "slo.releases.shop\/api" "0" is not a percentage/],
    [["99"], /field "slo" is invalid/],
  ];
  for (const [slo, message] of refused) {
    assert.throws(
      () => read(slo),
      (error: Error) => error instanceof ClusterRegistryError && message.test(error.message),
      JSON.stringify(slo),
    );
  }
});
