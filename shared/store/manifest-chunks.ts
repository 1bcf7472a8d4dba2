/**
 * Manifest bodies as stored: gzip of `{"manifest", "hooks"}` JSON, split into
 * chunks small enough for one DynamoDB item each, with the size, sha256 and
 * chunk count recorded in the revision item so a missing, extra or damaged
 * chunk is detected instead of returning a truncated manifest.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import type { ManifestBody } from "./revision-content.ts";
import { sha256Hex } from "./revision-content.ts";

/** Leaves ~50 KB of the 400 KB item limit for keys and attribute names. */
export const CHUNK_BYTES = 350 * 1024;

export interface ManifestRecord {
  enc: "gzip";
  storage: "chunks";
  /** Bytes of the uncompressed JSON body. */
  size: number;
  compressedSize: number;
  /** sha256 (hex) of the compressed bytes. */
  sha256: string;
  chunks: number;
  /**
   * Derived from the content hash and part of each chunk's key: two writers racing
   * on one revision with different content never overwrite each other's chunks.
   */
  blobId: string;
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

export function revisionSortKey(revision: number): string {
  return `REV#${pad(revision, 10)}`;
}

/** All chunks of one revision (any content), for deletes. */
export function revisionBlobPrefix(revision: number): string {
  return `BLOB#${pad(revision, 10)}#`;
}

export function blobPrefix(revision: number, blobId: string): string {
  return `${revisionBlobPrefix(revision)}${blobId}#`;
}

export function blobSortKey(revision: number, blobId: string, index: number): string {
  return `${blobPrefix(revision, blobId)}${pad(index, 4)}`;
}

export function packBody(body: ManifestBody, contentHash: string): { record: ManifestRecord; chunks: Buffer[] } {
  const json = Buffer.from(JSON.stringify(body), "utf8");
  const compressed = gzipSync(json, { level: 6 });
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < compressed.length || chunks.length === 0; offset += CHUNK_BYTES) {
    chunks.push(compressed.subarray(offset, offset + CHUNK_BYTES));
  }
  return {
    record: {
      enc: "gzip",
      storage: "chunks",
      size: json.length,
      compressedSize: compressed.length,
      sha256: sha256Hex(compressed),
      chunks: chunks.length,
      blobId: contentHash.slice(0, 16),
    },
    chunks,
  };
}

/** Reassembles and verifies; `problem` is called (and must throw) on any inconsistency. */
export function unpackBody(
  record: ManifestRecord,
  chunks: { index: number; data: Uint8Array }[],
  problem: (message: string, cause?: unknown) => never,
): ManifestBody {
  const sorted = [...chunks].sort((a, b) => a.index - b.index);
  if (sorted.length !== record.chunks) problem(`expected ${record.chunks} chunk(s), found ${sorted.length}`);
  sorted.forEach((chunk, i) => {
    if (chunk.index !== i) problem(`chunk ${i} is missing`);
  });
  const compressed = Buffer.concat(sorted.map((c) => c.data));
  if (compressed.length !== record.compressedSize) {
    problem(`expected ${record.compressedSize} compressed bytes, found ${compressed.length}`);
  }
  if (sha256Hex(compressed) !== record.sha256) problem("sha256 mismatch");
  let json: Buffer;
  try {
    json = gunzipSync(compressed, { maxOutputLength: record.size + 1 });
  } catch (error) {
    return problem("gzip data does not inflate", error);
  }
  if (json.length !== record.size) problem(`expected ${record.size} bytes, inflated ${json.length}`);
  try {
    const body = JSON.parse(json.toString("utf8")) as ManifestBody;
    if (typeof body.manifest !== "string" || !Array.isArray(body.hooks)) problem("unexpected body shape");
    return body;
  } catch (error) {
    return problem("body is not JSON", error);
  }
}
