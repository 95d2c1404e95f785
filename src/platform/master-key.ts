// The master key that encrypts BYOK secrets (AES-256-GCM). From SWITCHYARD_MASTER_KEY (32 bytes, base64
// or hex), else generated once into the data folder with mode 0600 and a warning.
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { sha256Hex } from "./ids";
import type { Logger } from "./logger";

export interface MasterKey {
  bytes: Buffer;
  /** Short fingerprint stored beside each secret, so a rotated key can be told apart. */
  id: string;
}

export function decodeMasterKey(s: string): Buffer | undefined {
  const t = s.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, "hex");
  const b = Buffer.from(t, "base64");
  return b.length === 32 ? b : undefined;
}

export function loadMasterKey(configured: string | undefined, dataDir: string, logger: Logger): MasterKey {
  let bytes: Buffer | undefined;
  if (configured) {
    bytes = decodeMasterKey(configured);
    if (!bytes) throw new Error("SWITCHYARD_MASTER_KEY must be 32 bytes, base64 or hex");
  } else {
    const file = join(dataDir, "master.key");
    if (existsSync(file)) {
      bytes = decodeMasterKey(readFileSync(file, "utf8"));
      if (!bytes) throw new Error(`${file} does not hold a 32-byte key (base64 or hex)`);
    } else {
      mkdirSync(dataDir, { recursive: true });
      bytes = randomBytes(32);
      writeFileSync(file, bytes.toString("base64") + "\n", { mode: 0o600 });
      chmodSync(file, 0o600);
      logger.warn("SWITCHYARD_MASTER_KEY is not set: generated one into the data folder; back it up", { file });
    }
  }
  return { bytes, id: sha256Hex(bytes.toString("hex")).slice(0, 12) };
}
