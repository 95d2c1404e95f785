// Counting what an instance sends to Redis: ioredis sends every command through sendCommand, so wrapping
// it for the length of one step lists the commands that step cost, by name (scripts are evalsha, or eval
// on a script's first use on a connection).
import type { RedisConnection } from "../../../src/platform/redis";

/** The names of the commands `conn` sends while `fn` runs. */
export async function commandsSent(conn: RedisConnection, fn: () => unknown): Promise<string[]> {
  const sent: string[] = [];
  const client = conn.client as unknown as { sendCommand(c: { name: string }): unknown };
  const original = client.sendCommand;
  client.sendCommand = function (this: unknown, c: { name: string }) {
    sent.push(c.name);
    return original.call(this, c);
  };
  try {
    await fn();
  } finally {
    client.sendCommand = original;
  }
  return sent;
}

/** How many of them ran a script. */
export const scripts = (sent: readonly string[]): number => sent.filter((n) => n === "evalsha" || n === "eval").length;
