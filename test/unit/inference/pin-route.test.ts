// A follow-up goes to the one route and credential that created the response, or nowhere (null: the
// caller answers the previous_response_id 400). Candidates come from the real planner.
import { describe, expect, test } from "bun:test";
import { credentialOf, pinCandidates, sameCredential } from "../../../src/inference/responses/pin-route";
import type { ServedRoute } from "../../../src/inference/responses/route-memory";
import { planRoute } from "../../../src/routing/candidates";
import { HealthStore } from "../../../src/routing/health";
import type { Candidate } from "../../../src/routing/types";
import { keys, model, providerMap, route } from "../routing/fixtures";

const m = model("acme/chat", [
  route({ provider: "a", input: 1, output: 1 }),
  route({ provider: "b", input: 2, output: 2 }),
  route({ provider: "c", input: 3, output: 3 }),
]);

function plan(exclude: string[] = []): Candidate[] {
  const p = planRoute({
    models: [m],
    providers: providerMap("a", "b", "c"),
    request: { optimize: "cost" },
    defaults: { exclude_providers: exclude },
    hasCredential: () => true,
    health: new HealthStore(),
    endpoint: "chat_completions",
    now: 1_000,
  });
  if (!p.ok) throw new Error(p.message);
  return p.candidates;
}

const servedByB: ServedRoute = { providerId: "b", providerModelId: "b-model", routeKey: "b/b-model", credential: { byokKeyId: "k1" } };
const always = () => true;

describe("pinCandidates", () => {
  test("keeps only the route that served the response, even when it is not the planner's first choice", () => {
    const candidates = plan();
    expect(keys(candidates)).toEqual(["a/a-model", "b/b-model", "c/c-model"]);
    const pinned = pinCandidates(candidates, servedByB, always);
    expect(pinned).not.toBeNull();
    expect(keys(pinned!)).toEqual(["b/b-model"]);
    expect(pinned![0]).toBe(candidates[1]!);
  });

  test("null when the route is no longer among the eligible candidates", () => {
    expect(pinCandidates(plan(["b"]), servedByB, always)).toBeNull();
    const gone: ServedRoute = { ...servedByB, providerModelId: "b-model-old", routeKey: "b/b-model-old" };
    expect(pinCandidates(plan(), gone, always)).toBeNull();
  });

  test("null when the credential no longer holds, and the check sees the recalled entry", () => {
    const seen: ServedRoute[] = [];
    const pinned = pinCandidates(plan(), servedByB, (s) => {
      seen.push(s);
      return false;
    });
    expect(pinned).toBeNull();
    expect(seen).toEqual([servedByB]);
  });

  test("with the current credential as credentialOf reports it: same BYOK key pins, another key or none does not", () => {
    const now = (key: { byokKeyId: string } | null) => (s: ServedRoute) => sameCredential(s.credential, credentialOf(key));
    expect(pinCandidates(plan(), servedByB, now({ byokKeyId: "k1" }))).toHaveLength(1);
    // The key was deleted or disabled (the workspace falls back to the platform key) or another became default.
    expect(pinCandidates(plan(), servedByB, now(null))).toBeNull();
    expect(pinCandidates(plan(), servedByB, now({ byokKeyId: "k2" }))).toBeNull();
    // Served on the platform key: a BYOK key added since stands in its place, so the response is out of reach.
    const onPlatform: ServedRoute = { ...servedByB, credential: "platform" };
    expect(pinCandidates(plan(), onPlatform, now(null))).toHaveLength(1);
    expect(pinCandidates(plan(), onPlatform, now({ byokKeyId: "k1" }))).toBeNull();
  });
});

describe("credential identity", () => {
  test("credentialOf keeps only the key's ID, never its secret", () => {
    const key = { byokKeyId: "k1", secret: "sk-secret", accountTier: null };
    expect(credentialOf(key)).toEqual({ byokKeyId: "k1" });
    expect(credentialOf(null)).toBe("platform");
  });

  test("sameCredential compares platform with platform and BYOK keys by ID", () => {
    expect(sameCredential("platform", "platform")).toBe(true);
    expect(sameCredential({ byokKeyId: "k1" }, { byokKeyId: "k1" })).toBe(true);
    expect(sameCredential({ byokKeyId: "k1" }, { byokKeyId: "k2" })).toBe(false);
    expect(sameCredential("platform", { byokKeyId: "k1" })).toBe(false);
    expect(sameCredential({ byokKeyId: "k1" }, "platform")).toBe(false);
  });
});
