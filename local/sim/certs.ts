import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { SimulatorSetupError } from "./errors.ts";

const run = promisify(execFile);

export interface ServerCertificates {
  /** PEM of the throwaway CA: clients trust this, exactly as EKS hands out certificateAuthority.data. */
  caPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * A fresh CA and a server certificate for 127.0.0.1/localhost, made with the openssl
 * command (node:crypto cannot issue X.509 certificates). The key files live only in a
 * temporary folder that is removed before returning. Go's TLS stack (kubectl, helm)
 * needs the CA constraints and the IP SAN, so both are explicit.
 */
export async function makeServerCertificates(label: string): Promise<ServerCertificates> {
  const dir = await mkdtemp(join(tmpdir(), "sim-eks-ca-"));
  try {
    const path = (file: string) => join(dir, file);
    const subjectLabel = label.replace(/[^A-Za-z0-9.-]/g, "-").slice(0, 40) || "sim";
    await openssl([
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ["-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "30", "-subj", `/CN=sim-eks-ca-${subjectLabel}`],
      ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
    ]);
    await writeFile(
      path("server.ext"),
      [
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "basicConstraints=critical,CA:FALSE",
        "keyUsage=critical,digitalSignature,keyEncipherment",
        "extendedKeyUsage=serverAuth",
        "",
      ].join("\n"),
    );
    await openssl([
      ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=kube-apiserver"],
    ]);
    await openssl([
      ["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key")],
      ["-CAcreateserial", "-out", path("server.crt"), "-days", "30", "-extfile", path("server.ext")],
    ]);
    const [caPem, certPem, keyPem] = await Promise.all(
      ["ca.crt", "server.crt", "server.key"].map((file) => readFile(path(file), "utf8")),
    );
    return { caPem, certPem, keyPem };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function openssl(argGroups: string[][]): Promise<void> {
  try {
    await run("openssl", argGroups.flat(), { timeout: 30_000 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new SimulatorSetupError(
        "the simulated EKS needs the openssl command to make its throwaway CA; install openssl (apt-get install openssl)",
        { cause: error },
      );
    }
    const stderr = String((error as { stderr?: string }).stderr ?? "").trim();
    throw new SimulatorSetupError(`openssl failed while making the simulator's CA: ${stderr || String(error)}`, {
      cause: error,
    });
  }
}
