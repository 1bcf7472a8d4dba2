import assert from "node:assert/strict";
import { test } from "node:test";
import {
  revisionOrLatest,
  validateClusterName,
  validateNamespace,
  validateNewReleaseName,
  validateReleaseName,
  validateRevision,
  validateStatus,
} from "../../shared/release/validation.ts";

const HELM_MESSAGE =
  "invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53";

test("release names: Helm v4's DNS-1123 subdomain rule, at most 53 bytes, exact messages", () => {
  for (const ok of ["demo", "a", "my-app.v2", "x".repeat(53), "0abc", "a.b.c"])
    assert.equal(validateReleaseName(ok), ok);
  assert.throws(() => validateReleaseName(""), {
    name: "InvalidReleaseNameError",
    message: "no name provided",
    kind: "validation",
  });
  assert.throws(() => validateReleaseName(undefined), { message: "no name provided" });
  for (const bad of ["Demo", "my_app", "-a", "a-", "a..b", ".a", "x".repeat(54), "é", "a b", "a#b", 42]) {
    // Storing (import, CI push): ValidateReleaseName's text; looking up: helm's action wording.
    assert.throws(
      () => validateNewReleaseName(bad),
      { name: "InvalidReleaseNameError", message: HELM_MESSAGE },
      String(bad),
    );
    const shown = typeof bad === "string" && /^[\x20-\x7e]*$/.test(bad) ? bad : JSON.stringify(String(bad));
    assert.throws(
      () => validateReleaseName(bad),
      { name: "InvalidReleaseNameError", message: `release name is invalid: ${shown}` },
      String(bad),
    );
  }
});

test("revision 0 or less is the latest (undefined), Helm's rule; anything else must be a valid revision", () => {
  for (const latest of [undefined, 0, -1, "0", "-1", "-2147483648", "+0"])
    assert.equal(revisionOrLatest(latest), undefined);
  assert.equal(revisionOrLatest("7"), 7);
  assert.equal(revisionOrLatest(7), 7);
  for (const bad of ["two", "1.5", "", 2 ** 31, "2147483648", 1.5, "0x1"]) {
    assert.throws(() => revisionOrLatest(bad), { name: "InvalidRevisionError" }, String(bad));
  }
});

test("namespaces: DNS-1123 labels of at most 63 characters", () => {
  assert.equal(validateNamespace("kube-system"), "kube-system");
  assert.equal(validateNamespace("x".repeat(63)), "x".repeat(63));
  for (const bad of ["Default", "a.b", "x".repeat(64), "-a", "a_b"]) {
    assert.throws(() => validateNamespace(bad), { name: "InvalidNamespaceError", message: /RFC 1123 label/ }, bad);
  }
  assert.throws(() => validateNamespace(""), { message: "no namespace provided" });
});

test("revisions: positive int32 from numbers or digit strings", () => {
  assert.equal(validateRevision(1), 1);
  assert.equal(validateRevision("42"), 42);
  assert.equal(validateRevision("2147483647"), 2147483647);
  for (const bad of [0, -1, 1.5, "0", "2147483648", "1e3", "+1", " 1", "abc", "", Number.NaN, null, "99999999999"]) {
    assert.throws(
      () => validateRevision(bad),
      { name: "InvalidRevisionError", message: /positive integer/ },
      String(bad),
    );
  }
});

test("cluster names and statuses", () => {
  assert.equal(validateClusterName("prod-eu_1"), "prod-eu_1");
  for (const bad of ["", "a#b", "-a", "a/b", "x".repeat(101)]) {
    assert.throws(() => validateClusterName(bad), { name: "InvalidClusterNameError" }, bad);
  }
  assert.equal(validateStatus("pending-upgrade"), "pending-upgrade");
  assert.throws(() => validateStatus("DEPLOYED"), { name: "InvalidReleaseStatusError", message: /must be one of/ });
});

test("messages quote user input safely and briefly", () => {
  const long = `${"a".repeat(200)}\u0000`;
  assert.throws(
    () => validateNamespace(long),
    (error: Error) => error.message.length < 300 && !error.message.includes("\u0000"),
  );
});
