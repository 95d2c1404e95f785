// AES-256-GCM sealing of BYOK provider secrets under the master key. Each secret gets a fresh random
// 12-byte nonce; the master key's ID is stored beside the ciphertext so a rotated key can be told apart;
// the associated data binds a ciphertext to its row, so copying it onto another row fails to open.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { MasterKey } from "../platform/master-key";

export interface SealedSecret {
  /** base64 of ciphertext ‖ 16-byte GCM tag. */
  ciphertext: string;
  /** base64 of the 12-byte nonce. */
  nonce: string;
  masterKeyId: string;
}

const TAG_BYTES = 16;

export function sealSecret(master: MasterKey, plaintext: string, associatedData: string): SealedSecret {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", master.bytes, nonce);
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return { ciphertext: body.toString("base64"), nonce: nonce.toString("base64"), masterKeyId: master.id };
}

export type OpenResult = { ok: true; plaintext: string } | { ok: false; reason: "wrong_master_key" | "corrupt" };

/** Opening is a value, not a throw: a row sealed under another master key must not break a reload. */
export function openSecret(master: MasterKey, sealed: SealedSecret, associatedData: string): OpenResult {
  if (sealed.masterKeyId !== master.id) return { ok: false, reason: "wrong_master_key" };
  try {
    const body = Buffer.from(sealed.ciphertext, "base64");
    const decipher = createDecipheriv("aes-256-gcm", master.bytes, Buffer.from(sealed.nonce, "base64"));
    decipher.setAAD(Buffer.from(associatedData, "utf8"));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
    return { ok: true, plaintext: plain.toString("utf8") };
  } catch {
    return { ok: false, reason: "corrupt" };
  }
}

/** Display form of a secret: first four and last four characters, e.g. `sk-a…b9f2`. */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return `${secret.slice(0, 2)}…`;
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}
