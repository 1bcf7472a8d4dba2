/**
 * The few Kubernetes protobuf bodies real clients send whatever the server prefers: client-go's
 * typed clients (kubectl 1.35 `create namespace`, Helm 4's release storage writing its
 * `sh.helm.release.v1.*` Secret or ConfigMap) POST/PUT `application/vnd.kubernetes.protobuf` and
 * never fall back to JSON on a 415. Only Namespace, Secret and ConfigMap are decoded (the kinds
 * those clients write); anything else stays a 415, like a server without that serializer.
 *
 * Wire format: the magic "k8s\0", then a runtime.Unknown {typeMeta=1 {apiVersion=1, kind=2},
 * raw=2, contentEncoding=3, contentType=4}; raw is the kind's generated.proto message.
 */
import type { KubeObject } from "./types.ts";

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A body that is not the protobuf it claims to be (the handler maps it to a 400). */
export class ProtobufDecodeError extends Error {
  override name = "ProtobufDecodeError";
}

/** A well-formed body of a kind this simulator has no protobuf schema for (a 415). */
export class ProtobufKindUnsupportedError extends Error {
  override name = "ProtobufKindUnsupportedError";
}

interface Field {
  number: number;
  wire: number;
  varint?: bigint;
  bytes?: Buffer;
}

function readVarint(buffer: Buffer, start: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  let offset = start;
  // A varint is at most 10 bytes: the loop is bounded by that, not by the input.
  for (let i = 0; i < 10; i++) {
    if (offset >= buffer.length) throw new ProtobufDecodeError("truncated varint");
    const byte = buffer[offset++];
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, offset];
    shift += 7n;
  }
  throw new ProtobufDecodeError("varint longer than 10 bytes");
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const [key, afterKey] = readVarint(buffer, offset);
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    offset = afterKey;
    if (number === 0) throw new ProtobufDecodeError("field number 0");
    if (wire === 0) {
      const [value, next] = readVarint(buffer, offset);
      out.push({ number, wire, varint: value });
      offset = next;
    } else if (wire === 2) {
      const [length, next] = readVarint(buffer, offset);
      const end = next + Number(length);
      if (length > BigInt(buffer.length) || end > buffer.length) throw new ProtobufDecodeError("truncated field");
      out.push({ number, wire, bytes: buffer.subarray(next, end) });
      offset = end;
    } else if (wire === 1 || wire === 5) {
      offset += wire === 1 ? 8 : 4;
      if (offset > buffer.length) throw new ProtobufDecodeError("truncated fixed-width field");
    } else {
      throw new ProtobufDecodeError(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

const text = (field: Field) => (field.bytes ?? Buffer.alloc(0)).toString("utf8");

function mapEntry(field: Field): [string, Buffer] {
  let key = "";
  let value: Buffer = Buffer.alloc(0);
  for (const f of fields(field.bytes ?? Buffer.alloc(0))) {
    if (f.number === 1) key = text(f);
    else if (f.number === 2) value = f.bytes ?? Buffer.alloc(0);
  }
  return [key, value];
}

function stringMap(entries: Field[], encode: (value: Buffer) => string): Record<string, string> | undefined {
  if (entries.length === 0) return undefined;
  const map: Record<string, string> = {};
  for (const entry of entries) {
    const [key, value] = mapEntry(entry);
    map[key] = encode(value);
  }
  return map;
}

const utf8 = (value: Buffer) => value.toString("utf8");
const base64 = (value: Buffer) => value.toString("base64");

/** ObjectMeta: only what a client may set on create/update (the server owns uid, timestamps...). */
function objectMeta(buffer: Buffer): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const labels: Field[] = [];
  const annotations: Field[] = [];
  const finalizers: string[] = [];
  for (const f of fields(buffer)) {
    if (f.wire !== 2) continue;
    if (f.number === 1) meta.name = text(f);
    else if (f.number === 2) meta.generateName = text(f);
    else if (f.number === 3) meta.namespace = text(f);
    else if (f.number === 6) meta.resourceVersion = text(f);
    else if (f.number === 11) labels.push(f);
    else if (f.number === 12) annotations.push(f);
    else if (f.number === 14) finalizers.push(text(f));
  }
  for (const key of ["name", "generateName", "namespace", "resourceVersion"]) if (meta[key] === "") delete meta[key];
  const labelMap = stringMap(labels, utf8);
  const annotationMap = stringMap(annotations, utf8);
  if (labelMap) meta.labels = labelMap;
  if (annotationMap) meta.annotations = annotationMap;
  if (finalizers.length > 0) meta.finalizers = finalizers;
  return meta;
}

function secret(raw: Buffer): KubeObject {
  const object: Record<string, unknown> = { apiVersion: "v1", kind: "Secret", metadata: {} };
  const data: Field[] = [];
  const stringData: Field[] = [];
  for (const f of fields(raw)) {
    if (f.number === 1 && f.bytes) object.metadata = objectMeta(f.bytes);
    else if (f.number === 2) data.push(f);
    else if (f.number === 3) object.type = text(f);
    else if (f.number === 4) stringData.push(f);
    else if (f.number === 5) object.immutable = f.varint === 1n;
  }
  const dataMap = stringMap(data, base64);
  const stringDataMap = stringMap(stringData, utf8);
  if (dataMap) object.data = dataMap;
  if (stringDataMap) object.stringData = stringDataMap;
  return object as KubeObject;
}

function configMap(raw: Buffer): KubeObject {
  const object: Record<string, unknown> = { apiVersion: "v1", kind: "ConfigMap", metadata: {} };
  const data: Field[] = [];
  const binaryData: Field[] = [];
  for (const f of fields(raw)) {
    if (f.number === 1 && f.bytes) object.metadata = objectMeta(f.bytes);
    else if (f.number === 2) data.push(f);
    else if (f.number === 3) binaryData.push(f);
    else if (f.number === 4) object.immutable = f.varint === 1n;
  }
  const dataMap = stringMap(data, utf8);
  const binaryMap = stringMap(binaryData, base64);
  if (dataMap) object.data = dataMap;
  if (binaryMap) object.binaryData = binaryMap;
  return object as KubeObject;
}

function namespace(raw: Buffer): KubeObject {
  const object: Record<string, unknown> = { apiVersion: "v1", kind: "Namespace", metadata: {} };
  for (const f of fields(raw)) {
    if (f.number === 1 && f.bytes) object.metadata = objectMeta(f.bytes);
    else if (f.number === 2 && f.bytes) {
      const finalizers = fields(f.bytes)
        .filter((s) => s.number === 1)
        .map(text);
      if (finalizers.length > 0) object.spec = { finalizers };
    }
  }
  return object as KubeObject;
}

const decoders: Record<string, (raw: Buffer) => KubeObject> = {
  "v1/Secret": secret,
  "v1/ConfigMap": configMap,
  "v1/Namespace": namespace,
};

/** Decodes a `application/vnd.kubernetes.protobuf` request body into the JSON object it stands for. */
export function decodeProtobufObject(body: Buffer): KubeObject {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new ProtobufDecodeError('the body does not start with the Kubernetes protobuf prefix "k8s\\0"');
  }
  let apiVersion = "";
  let kind = "";
  let raw: Buffer | undefined;
  for (const f of fields(body.subarray(MAGIC.length))) {
    if (f.number === 1 && f.bytes) {
      for (const t of fields(f.bytes)) {
        if (t.number === 1) apiVersion = text(t);
        else if (t.number === 2) kind = text(t);
      }
    } else if (f.number === 2 && f.bytes) raw = f.bytes;
    else if (f.number === 3 && f.bytes && f.bytes.length > 0) {
      throw new ProtobufDecodeError(`unsupported contentEncoding ${JSON.stringify(text(f))}`);
    }
  }
  const decode = decoders[`${apiVersion}/${kind}`];
  if (!decode) {
    throw new ProtobufKindUnsupportedError(
      `no protobuf decoding for ${apiVersion || "<no apiVersion>"}/${kind || "<no kind>"} in this simulator`,
    );
  }
  return decode(raw ?? Buffer.alloc(0));
}
