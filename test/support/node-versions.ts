/**
 * Node 20 and 22 for the packed CLI's tests (it promises to run on Node 20, 22 and 24): npm's `node@MAJOR` package
 * (the official binary for this platform, what `npm ci` installs as node@24 for the checkout) installed once into
 * node_modules/.cache/node-versions/MAJOR, like kube-tools' helm. Not devDependencies: every `node` package
 * declares the bin `node`, and a second one would contend for node_modules/.bin/node, the Node 24 that npm
 * scripts run on. Installed into a temporary folder and renamed into place, so two racing processes both end with
 * a complete copy. When npm cannot install it (no registry), the error says so: the test fails, it is not skipped.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const exec = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cache = join(root, "node_modules", ".cache", "node-versions");

/** The path of a Node MAJOR binary, installed with npm on first use. */
export async function nodeBinary(major: 20 | 22): Promise<string> {
  const folder = join(cache, String(major));
  const binary = join(folder, "node_modules", "node", "bin", "node");
  if (existsSync(binary)) return binary;
  await mkdir(cache, { recursive: true });
  const staging = await mkdtemp(join(cache, `.${major}-`));
  try {
    // npm itself runs on this process's Node 24 (its npm-cli.js beside it), whatever the system's is.
    await exec("npm", ["install", "--prefix", staging, "--no-save", "--no-audit", "--no-fund", `node@${major}`], {
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
      timeout: 300_000,
    });
    await rename(staging, folder).catch(async (error) => {
      if (!existsSync(binary)) throw error; // another process won the race
    });
  } catch (error) {
    throw new Error(`cannot install node@${major} with npm for the test: ${(error as Error).message.split("\n")[0]}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return binary;
}
