/** Deterministic names like the controllers' (pod-template-hash, pod suffixes, volume and load balancer names). */
import { createHash } from "node:crypto";

const ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** Deterministic name suffixes like the controllers' (pod-template-hash, pod suffixes). */
export function hashSuffix(seed: string, length: number): string {
  const digest = createHash("sha256").update(seed).digest();
  return [...digest.subarray(0, length)].map((b) => ALPHABET[b % ALPHABET.length]).join("");
}
