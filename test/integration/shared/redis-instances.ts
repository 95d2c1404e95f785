// Instances of shared mode in one test process: two connections on one Redis prefix stand for two
// gateways, and one to a port nobody listens on (1) for a Redis that is down from the start.
import { expect } from "bun:test";
import type { Logger } from "../../../src/platform/logger";
import { RedisConnection } from "../../../src/platform/redis";
import { deleteKeys } from "./cluster";

export interface Instances {
  one: RedisConnection;
  two: RedisConnection;
  down: RedisConnection;
}

/** Starts the three connections (for a beforeAll); the two real ones must be up. */
export async function startInstances(url: string, prefix: string, logger: Logger): Promise<Instances> {
  const one = new RedisConnection(url, prefix, logger);
  const two = new RedisConnection(url, prefix, logger);
  const down = new RedisConnection("redis://127.0.0.1:1", prefix, logger, { startWaitMs: 300 });
  await Promise.all([one.start(), two.start(), down.start()]);
  expect(one.isUp() && two.isUp()).toBe(true);
  expect(down.isUp()).toBe(false);
  return { one, two, down };
}

/** Closes them and deletes the prefix's keys (for an afterAll). */
export async function stopInstances(i: Instances, url: string, prefix: string): Promise<void> {
  await Promise.all([i.one.close(), i.two.close(), i.down.close()]);
  await deleteKeys(url, prefix);
}
