// The BYOK credential check: the provider's adapter makes one cheap authenticated call.
import type { ProviderEntry } from "../../catalog/types";
import { adapterFor } from "../../providers/registry";
import type { CredentialCheck } from "../../providers/types";

export type CredentialValidator = (provider: ProviderEntry, apiKey: string, timeoutMs: number) => Promise<CredentialCheck>;

export const validateWithAdapter: CredentialValidator = (p, apiKey, timeoutMs) =>
  adapterFor(p.adapter).validateCredential(p.baseUrl, apiKey, timeoutMs);
