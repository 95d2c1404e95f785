// A private Postgres cluster a test may stop and start (the machine's shared Postgres serves other tests
// and must never be stopped): initdb into a temp directory owned by the `postgres` user, pg_ctl on a
// free port. Tests run as root, and Postgres refuses to run as root, so every command runs as `postgres`.
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { userInfo } from "node:os";
import postgres from "postgres";
import { eventually } from "./spawn";

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: trust auth, the default database. */
  url: string;
  port: number;
  /** Starts (or restarts) the server and waits until it accepts queries. */
  start(): Promise<void>;
  /** `fast` ends sessions and checkpoints; `immediate` is a crash-like stop. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Freezes every server process (SIGSTOP): connections are accepted by the kernel and never answered. */
  pause(): void;
  resume(): void;
  /** Stops the server (if running) and removes its directory. */
  destroy(): Promise<void>;
}

/** The newest installed Postgres's bin directory (Debian's layout), or undefined when there is none. */
export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

/**
 * True when this machine can run a private cluster: the binaries exist and we can act as `postgres`.
 * Under CI=true a machine that cannot is a failure, not a silent skip.
 */
export function privatePostgresAvailable(): boolean {
  const ok =
    postgresBinDir() !== undefined &&
    (userInfo().username === "postgres" ||
      (userInfo().uid === 0 && Bun.spawnSync(["id", "-u", "postgres"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0));
  if (!ok && process.env.CI === "true")
    throw new Error("CI: cannot run a private Postgres (binaries under /usr/lib/postgresql, root or postgres)");
  return ok;
}

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Runs a Postgres binary as the `postgres` user; throws with its output on failure. */
async function asPostgres(bin: string, args: string[]): Promise<void> {
  const cmd = userInfo().uid === 0 ? ["runuser", "-u", "postgres", "--", bin, ...args] : [bin, ...args];
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${bin} ${args.join(" ")} exited ${code}: ${out}${err}`);
}

async function acceptsQueries(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 1, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** The postmaster (first line of postmaster.pid) and its children, from /proc. */
function serverPids(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // The parent PID is the fourth field of /proc/PID/stat, after the parenthesised command name.
        return Number(readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ")[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** Creates the cluster (initdb); call start() to run it. */
export async function privatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no Postgres binaries under /usr/lib/postgresql/*/bin");
  const root = mkdtempSync(join(tmpdir(), "switchyard-pg-"));
  const data = join(root, "data");
  const sockets = join(root, "sockets");
  if (userInfo().uid === 0) {
    const uid = Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim());
    const gid = Number(Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim());
    chownSync(root, uid, gid);
  }
  const pgCtl = join(bin, "pg_ctl");
  await asPostgres(join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  await asPostgres("/bin/mkdir", ["-p", sockets]);
  const port = freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // Durability is not what these tests measure: fsync off keeps start and stop quick on a busy machine.
  const options = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  let running = false;
  // Should the test process end without afterAll, the cluster must not outlive it.
  const onExit = () => {
    if (!running) return;
    signal("SIGCONT");
    Bun.spawnSync(["runuser", "-u", "postgres", "--", pgCtl, "-D", data, "-m", "immediate", "stop"]);
  };
  process.once("exit", onExit);
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    if (!running) return;
    await asPostgres(pgCtl, ["-D", data, "-m", mode, "-w", "stop"]);
    running = false;
  };
  // A backend listed a moment ago may have exited since (a connection closing): that one needs no signal.
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of serverPids(data)) {
      try {
        process.kill(pid, sig);
      } catch (e) {
        if ((e as { code?: string }).code !== "ESRCH") throw e;
      }
    }
  };
  return {
    url,
    port,
    async start() {
      await asPostgres(pgCtl, ["-D", data, "-o", options, "-l", join(root, "server.log"), "-w", "-t", "20", "start"]);
      running = true;
      if (!(await eventually(() => acceptsQueries(url), 10_000, 50))) throw new Error(`private Postgres on port ${port} does not answer`);
    },
    stop,
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    async destroy() {
      try {
        if (running) signal("SIGCONT");
        await stop("immediate");
      } finally {
        process.off("exit", onExit);
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
