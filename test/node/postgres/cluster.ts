// A throwaway PostgreSQL server for one test file: initdb in a temp folder, a free loopback port, stopped and removed at the end.
//
// PostgreSQL refuses to run as root, so as root (CI, this machine) initdb and pg_ctl run as `nobody` through
// runuser, in a folder chowned to nobody. Debian's `postgresql` package provides the binaries (.ci/run installs
// it); MOOMEM_PG_BIN points elsewhere (e.g. /opt/homebrew/opt/postgresql@16/bin).

import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";

/** A role that must log in with a password (scram), for the tests that check no password is ever printed. */
export const PASSWORD_ROLE = "moomem_pw";

export interface TestCluster {
  port: number;
  /** Superuser URL (trust auth on loopback). */
  url: string;
  /** The cluster's data directory (bench/postgres.ts reads the postmaster's pid from it). */
  dataDir: string;
  /** Stops the server at once (like a crash: `-m immediate`); data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** A pool on the cluster with an error listener (idle connections die when the server stops). */
  pool(max?: number): pg.Pool;
  /** Stops the server, ends every pool handed out and removes the folder. */
  destroy(): Promise<void>;
}

function findBin(): string {
  const fromEnv = process.env["MOOMEM_PG_BIN"];
  if (fromEnv !== undefined && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(join(base, v, "bin", "initdb"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) {
    throw new Error(
      "no PostgreSQL server binaries found (initdb): install them (Debian: apt-get install -y postgresql; .ci/run does) or set MOOMEM_PG_BIN to their folder",
    );
  }
  return join(base, versions[0], "bin");
}

function run(file: string, args: string[], asUser: string | null): Promise<string> {
  const [cmd, argv] = asUser === null ? [file, args] : ["runuser", ["-u", asUser, "--", file, ...args]];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const live = new Set<() => void>();
process.once("exit", () => {
  for (const stop of live) stop();
});

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /**
   * PostgreSQL's durable defaults (fsync on, synchronous_commit on: every commit waits for its WAL to reach the
   * disk), what a deployment runs; for bench/postgres.ts `--durable`. Default false: the tests run with fsync=off.
   */
  durable?: boolean;
}

/** initdb + start: about a second here. One per test file; each test isolates itself by schema. */
export async function startCluster(clusterOptions: ClusterOptions = {}): Promise<TestCluster> {
  const durable = clusterOptions.durable === true;
  const bin = findBin();
  const asUser = process.getuid?.() === 0 ? "nobody" : null;
  const dir = mkdtempSync(join(tmpdir(), "moomem-pg-"));
  if (asUser !== null) {
    const uid = Number(execFileSync("id", ["-u", asUser]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", asUser]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  // -N: no fsync during initdb; the server runs with fsync=off too. What these tests check is moomem's
  // transactions against a real server; an immediate stop keeps the OS cache, so nothing acknowledged is lost.
  await run(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", ...(durable ? [] : ["-N"]), "--no-instructions"], asUser);
  const hba = join(data, "pg_hba.conf");
  writeFileSync(hba, `host all ${PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`);
  const port = await freePort();
  const sync = durable ? "-c fsync=on -c synchronous_commit=on" : "-c fsync=off";
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 ${sync} -c max_connections=200`;
  const pools = new Set<pg.Pool>();
  const pgCtl = (args: string[]): Promise<string> => run(join(bin, "pg_ctl"), ["-D", data, ...args], asUser);
  const start = async (): Promise<void> => {
    await pgCtl(["-l", join(dir, "log"), "-w", "-t", "120", "-o", options, "start"]);
  };
  const stopNow = (): void => {
    try {
      const [cmd, argv] =
        asUser === null
          ? [join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]]
          : ["runuser", ["-u", asUser, "--", join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]];
      execFileSync(cmd, argv, { stdio: "ignore" });
    } catch {
      // Not running.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  live.add(stopNow);
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    port,
    url,
    dataDir: data,
    stop: async () => {
      await pgCtl(["-m", "immediate", "-w", "stop"]);
    },
    start,
    pool: (max = 10) => {
      const pool = new pg.Pool({ connectionString: url, max });
      pool.on("error", () => undefined);
      pools.add(pool);
      return pool;
    },
    destroy: async () => {
      for (const pool of pools) await pool.end().catch(() => undefined);
      pools.clear();
      live.delete(stopNow);
      stopNow();
    },
  };
}

/** The cluster of one test file, its shared pool, and fresh schema names, from {@link clusterPerFile}. */
export interface FileCluster {
  readonly cluster: TestCluster;
  readonly pool: pg.Pool;
  /** A schema name no other test of this run uses: `<prefix><pid>_<n>`. */
  freshSchema(): string;
}

/**
 * Starts one throwaway cluster before the calling test file's tests and destroys it after them. Call at
 * the top level of the file; `cluster` and `pool` are there once its tests run.
 */
export function clusterPerFile(prefix: string): FileCluster {
  let cluster: TestCluster | undefined;
  let pool: pg.Pool | undefined;
  let schemas = 0;
  beforeAll(async () => {
    cluster = await startCluster();
    pool = cluster.pool();
  }, 180_000);
  afterAll(async () => {
    await cluster?.destroy();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the test cluster is not started: use it inside a test or a hook");
    return value;
  };
  return {
    get cluster() {
      return started(cluster);
    },
    get pool() {
      return started(pool);
    },
    freshSchema: () => `${prefix}${process.pid}_${++schemas}`,
  };
}
