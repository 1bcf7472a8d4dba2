/**
 * A cluster's throwaway CA and server certificate made in-process with node:crypto (P-256 keys, ECDSA-SHA256),
 * for a fleet: certs.ts spawns openssl three times per cluster (~25 ms each on a loaded 2-core machine, 77 s for
 * 1,000 clusters); this takes well under a millisecond. The certificates carry what Go's TLS stack and OpenSSL
 * check, as certs.ts's do: the CA is `CA:TRUE` (critical) with keyCertSign, the server certificate has the SAN
 * `IP:127.0.0.1, DNS:localhost`, `CA:FALSE`, digitalSignature and serverAuth. The private keys stay in memory.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import type { ServerCertificates } from "./certs.ts";

// DER encoding: tag, length, contents (X.690).
function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}
const seq = (...parts: Buffer[]) => der(0x30, ...parts);
const set = (...parts: Buffer[]) => der(0x31, ...parts);
const explicit = (n: number, ...parts: Buffer[]) => der(0xa0 + n, ...parts);
const octets = (bytes: Buffer) => der(0x04, bytes);
const utf8 = (text: string) => der(0x0c, Buffer.from(text, "utf8"));
const TRUE = der(0x01, Buffer.from([0xff]));

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number);
  const bytes = [40 * a + b];
  for (const value of rest) {
    const groups = [value & 0x7f];
    for (let v = value >> 7; v > 0; v >>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return der(0x06, Buffer.from(bytes));
}

/** A positive INTEGER from random bytes (the top bit cleared, so no sign byte is needed). */
function serial(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  bytes[0] |= 0x01;
  return der(0x02, bytes);
}

/** UTCTime (YYMMDDHHMMSSZ), valid for the dates a simulator lives in (before 2050). */
function utcTime(date: Date): Buffer {
  const iso = date.toISOString();
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return der(0x17, Buffer.from(text, "ascii"));
}

const name = (commonName: string) => seq(set(seq(oid("2.5.4.3"), utf8(commonName))));
const ECDSA_SHA256 = seq(oid("1.2.840.10045.4.3.2"));
const extension = (id: string, critical: boolean, value: Buffer) =>
  seq(oid(id), ...(critical ? [TRUE] : []), octets(value));
/** BIT STRING of KeyUsage bits (bit 0 is the most significant), with its unused-bit count. */
const keyUsage = (bits: number[]) => {
  let byte = 0;
  for (const bit of bits) byte |= 0x80 >> bit;
  const unused = 7 - Math.max(...bits);
  return der(0x03, Buffer.from([unused, byte]));
};
const keyId = (publicKey: KeyObject) =>
  createHash("sha1")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest();

function certificate(options: {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  authorityKeyId: Buffer;
  extensions: Buffer[];
}): string {
  const now = Date.now();
  const tbs = seq(
    explicit(0, der(0x02, Buffer.from([2]))),
    serial(),
    ECDSA_SHA256,
    name(options.issuer),
    seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 30 * 86_400_000))),
    name(options.subject),
    options.publicKey.export({ type: "spki", format: "der" }),
    explicit(
      3,
      seq(
        ...options.extensions,
        extension("2.5.29.14", false, octets(keyId(options.publicKey))),
        extension("2.5.29.35", false, seq(der(0x80, options.authorityKeyId))),
      ),
    ),
  );
  const signature = sign("sha256", tbs, options.signingKey);
  const certDer = seq(tbs, ECDSA_SHA256, der(0x03, Buffer.from([0]), signature));
  const base64 = certDer.toString("base64").replace(/.{64}/g, "$&\n");
  return `-----BEGIN CERTIFICATE-----\n${base64.replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
}

/** A fresh CA (its own key) and a server certificate for 127.0.0.1/localhost signed by it. */
export function makeFastServerCertificates(label: string): ServerCertificates {
  const subjectLabel = label.replace(/[^A-Za-z0-9.-]/g, "-").slice(0, 40) || "sim";
  const ca = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const server = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const caId = keyId(ca.publicKey);
  const caPem = certificate({
    subject: `sim-eks-ca-${subjectLabel}`,
    issuer: `sim-eks-ca-${subjectLabel}`,
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    authorityKeyId: caId,
    extensions: [
      extension("2.5.29.19", true, seq(TRUE)),
      // keyCertSign (5), cRLSign (6).
      extension("2.5.29.15", true, keyUsage([5, 6])),
    ],
  });
  const certPem = certificate({
    subject: "kube-apiserver",
    issuer: `sim-eks-ca-${subjectLabel}`,
    publicKey: server.publicKey,
    signingKey: ca.privateKey,
    authorityKeyId: caId,
    extensions: [
      // iPAddress [7] 127.0.0.1, dNSName [2] localhost.
      extension("2.5.29.17", false, seq(der(0x87, Buffer.from([127, 0, 0, 1])), der(0x82, Buffer.from("localhost")))),
      extension("2.5.29.19", true, seq()),
      // digitalSignature (0), keyEncipherment (2).
      extension("2.5.29.15", true, keyUsage([0, 2])),
      extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1"))),
    ],
  });
  const keyPem = server.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  return { caPem, certPem, keyPem };
}
