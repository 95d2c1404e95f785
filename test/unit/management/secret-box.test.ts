import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { maskSecret, openSecret, sealSecret } from "../../../src/crypto/secret-box";
import type { MasterKey } from "../../../src/platform/master-key";

const key = (id: string): MasterKey => ({ bytes: randomBytes(32), id });

describe("secret box (AES-256-GCM)", () => {
  const master = key("k1");

  test("seals and opens; the ciphertext holds no trace of the plaintext", () => {
    const sealed = sealSecret(master, "sk-live-0123456789abcdef", "byok:ws:1");
    expect(sealed.masterKeyId).toBe("k1");
    expect(Buffer.from(sealed.nonce, "base64")).toHaveLength(12);
    expect(Buffer.from(sealed.ciphertext, "base64").toString("latin1")).not.toContain("0123456789");
    expect(openSecret(master, sealed, "byok:ws:1")).toEqual({ ok: true, plaintext: "sk-live-0123456789abcdef" });
  });

  test("a fresh nonce per seal", () => {
    const nonces = new Set(Array.from({ length: 50 }, () => sealSecret(master, "same", "aad").nonce));
    expect(nonces.size).toBe(50);
  });

  test("another master key, another row's associated data or a flipped bit do not open", () => {
    const sealed = sealSecret(master, "secret-value", "byok:ws:1");
    expect(openSecret(key("k2"), sealed, "byok:ws:1")).toEqual({ ok: false, reason: "wrong_master_key" });
    expect(openSecret({ ...key("k1") }, sealed, "byok:ws:1")).toEqual({ ok: false, reason: "corrupt" });
    expect(openSecret(master, sealed, "byok:ws:2")).toEqual({ ok: false, reason: "corrupt" });
    const body = Buffer.from(sealed.ciphertext, "base64");
    body[0]! ^= 1;
    expect(openSecret(master, { ...sealed, ciphertext: body.toString("base64") }, "byok:ws:1")).toEqual({ ok: false, reason: "corrupt" });
  });

  test("mask shows four characters at each end only", () => {
    expect(maskSecret("sk-abcdefghijklmnopb9f2")).toBe("sk-a…b9f2");
    expect(maskSecret("short-1234")).toBe("sh…");
  });
});
