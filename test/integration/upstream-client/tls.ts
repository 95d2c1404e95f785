// A certificate authority made for one test run (openssl), and a server certificate it signs for
// localhost and 127.0.0.1: nginx serves the certificate, the clients trust the authority.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCa {
  dir: string;
  /** The authority's certificate (PEM), what the clients are given to trust. */
  caPem: string;
  caFile: string;
  certFile: string;
  keyFile: string;
}

function openssl(args: string[], cwd: string): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString()}`);
}

export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-ca-"));
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=Switchyard test CA",
    ],
    dir,
  );
  openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"], dir);
  writeFileSync(
    join(dir, "server.ext"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  openssl(
    [
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.pem",
      "-days",
      "2",
      "-extfile",
      "server.ext",
    ],
    dir,
  );
  const caFile = join(dir, "ca.pem");
  return { dir, caPem: readFileSync(caFile, "utf8"), caFile, certFile: join(dir, "server.pem"), keyFile: join(dir, "server.key") };
}
