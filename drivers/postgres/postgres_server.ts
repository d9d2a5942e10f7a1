/**
 * PostgreSQL: probing a user-given server and starting throwaway ones.
 *
 * @module
 */
import postgres from "postgres";
import type {
  ServiceDefinition,
  StartedServer,
  StartOptions,
} from "../../lib/services/service_types.ts";
import {
  launchServer,
  restartableServer,
  runSetup,
  type ServerProcess,
} from "../../lib/services/server.ts";
import type { SpawnLoggedOptions } from "../../lib/system/logged_process.ts";
import { withTimeout } from "../../lib/system/sleep.ts";
import { type ServerTools, serverTools } from "../../lib/services/fetched.ts";
import { postgresFetcher } from "./postgres_fetch.ts";
import {
  UnreachableError,
  unreachableError,
} from "../../lib/services/unreachable.ts";

/** How long `initdb` plus the first accepted connection may take. */
const START_TIMEOUT_MS = 20_000;
/** How long a restarted server may take to replay its WAL (crash recovery). */
const RESTART_TIMEOUT_MS = 120_000;
/** How long the postmaster may take to exit after SIGINT (fast shutdown). */
const STOP_GRACE_MS = 15_000;

/** A user's ids, as found in `/etc/passwd`. */
interface UserIds {
  readonly uid: number;
  readonly gid: number;
}

/** Looks a user up in `/etc/passwd`. */
async function lookUpUser(name: string): Promise<UserIds | undefined> {
  const passwd = await Deno.readTextFile("/etc/passwd");
  for (const line of passwd.split("\n")) {
    const fields = line.split(":");
    if (fields[0] === name && fields.length >= 4) {
      return { uid: Number(fields[2]), gid: Number(fields[3]) };
    }
  }
  return undefined;
}

/**
 * The user to run `initdb` and `postgres` as when we are root (both refuse
 * to run as root): `postgres`, or `nobody` on a machine without PostgreSQL's
 * package (which adds that user); ourselves otherwise.
 */
async function serverUser(): Promise<UserIds | undefined> {
  if (Deno.uid() !== 0) return undefined;
  const user = await lookUpUser("postgres") ?? await lookUpUser("nobody");
  if (user == null) {
    throw new Error(
      "PostgreSQL refuses to run as root and there is neither a postgres " +
        "nor a nobody user in /etc/passwd; run the bench as another user " +
        "or set POSTGRES_URL",
    );
  }
  return user;
}

/**
 * Starts a throwaway PostgreSQL cluster: `initdb` into `dir/data`, then the
 * `postgres` server itself as a child process (not daemonized) listening on
 * `127.0.0.1:port` with its Unix socket in `dir/socket`.  Durability settings
 * keep their defaults so the numbers stay realistic.  Output goes to
 * `initdb.log` and `postgres.log` in `dir`.  When running as root, the
 * folders are handed to the `postgres` user and both programs run as it.
 * The server can be killed and restarted; a restart after a kill goes
 * through PostgreSQL's crash recovery.
 *
 * @param options The folder and port.
 * @returns The running server; its URL is
 *   `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication).
 * @throws {Error} When `initdb` fails or the server does not accept
 *   connections within 20 seconds (with the log's last lines), or when
 *   `options.signal` aborts.
 */
export async function startPostgres(
  options: StartOptions,
): Promise<StartedServer> {
  const { dir, port, signal } = options;
  const tools = options.tools ??
    await serverTools(postgresService.binaries, postgresFetcher, {
      signal,
      folders: postgresBinFolders(),
    });
  signal?.throwIfAborted();
  const deadline = Date.now() + START_TIMEOUT_MS;
  const user = await serverUser();
  const dataDir = `${dir}/data`;
  const socketDir = `${dir}/socket`;
  await Deno.mkdir(dataDir, { mode: 0o700 });
  await Deno.mkdir(socketDir, { mode: 0o700 });
  if (user != null) {
    for (const path of [dir, dataDir, socketDir]) {
      await Deno.chown(path, user.uid, user.gid);
    }
  }
  const spawnOptions = {
    cwd: dir,
    uid: user?.uid,
    gid: user?.gid,
    env: { ...tools.env, LC_ALL: "C" },
  };

  // An abort sends initdb SIGTERM, so it reaps its own `postgres --single`
  // child; a SIGKILL would orphan it, and PID 1 in a container may never
  // reap it.
  try {
    await runSetup(
      "initdb",
      tools.path("initdb"),
      [
        "-D",
        dataDir,
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-locale",
      ],
      { ...spawnOptions, logPath: `${dir}/initdb.log` },
      signal,
    );
  } catch (error) {
    if (!(error instanceof Deno.errors.PermissionDenied) || user == null) {
      throw error;
    }
    throw new Error(
      `PostgreSQL runs as uid ${user.uid} here, which cannot run ${
        tools.path("initdb")
      }: every folder above it must be open to others (chmod o+rx), or ` +
        "set BENCH_CACHE_DIR to such a folder",
      { cause: error },
    );
  }

  signal?.throwIfAborted();
  const launch = (timeoutMs: number) =>
    launchPostgres({
      ...options,
      dataDir,
      socketDir,
      tools,
      spawn: { ...spawnOptions, logPath: `${dir}/postgres.log` },
      timeoutMs,
    });
  return restartableServer(
    `postgres://postgres@127.0.0.1:${port}/postgres`,
    await launch(deadline - Date.now()),
    () => launch(RESTART_TIMEOUT_MS),
  );
}

/** Options for {@link launchPostgres}. */
interface LaunchOptions extends StartOptions {
  /** The initialised data folder. */
  readonly dataDir: string;
  /** The folder for the Unix socket. */
  readonly socketDir: string;
  /** As whom, where and with what log the server runs. */
  readonly spawn: SpawnLoggedOptions;
  /** How long it may take to accept connections. */
  readonly timeoutMs: number;
  /** The server's programs. */
  readonly tools: ServerTools;
}

/**
 * Spawns the `postgres` server on an initialised data folder and waits until
 * it accepts connections (after crash recovery, if it needs one); on failure,
 * stops it and throws with the log's last lines.
 */
function launchPostgres(
  { port, signal, dataDir, socketDir, spawn, timeoutMs, tools }: LaunchOptions,
): Promise<ServerProcess> {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return launchServer({
    name: "postgres",
    command: tools.path("postgres"),
    args: [
      "-D",
      dataDir,
      "-p",
      String(port),
      "-k",
      socketDir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "max_connections=200",
    ],
    spawn,
    awaited: `no connection on port ${port}`,
    timeoutMs,
    intervalMs: 50,
    signal,
    stopSignal: "SIGINT",
    stopGraceMs: STOP_GRACE_MS,
    probe: () => probePostgres(url, 2000),
  });
}

/**
 * Connects to the PostgreSQL server at `url` and returns its version.  Never
 * waits longer than `timeoutMs`; always closes the connection.
 *
 * @param url A `postgres://` or `postgresql://` URL.
 * @param timeoutMs The longest time to try.
 * @returns The server's `server_version`, for example `"15.20 (Debian …)"`.
 * @throws {Error} Naming the URL (without password) and the cause.
 */
export async function probePostgres(
  url: string,
  timeoutMs: number,
): Promise<{ version: string }> {
  const fail = (cause: unknown) => unreachableError("PostgreSQL", url, cause);
  let sql: postgres.Sql | undefined;
  try {
    sql = postgres(url, {
      max: 1,
      connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
      idle_timeout: 1,
      fetch_types: false,
      prepare: false,
      onnotice: () => {},
    });
    const db = sql;
    const rows = await withTimeout(
      db`show server_version`.then((rows) => rows),
      timeoutMs,
      () => fail(`no answer within ${timeoutMs} ms`),
    );
    const version = String(rows[0]?.server_version ?? "").trim();
    if (!version) throw new Error("SHOW server_version returned nothing");
    return { version };
  } catch (error) {
    throw error instanceof UnreachableError ? error : fail(error);
  } finally {
    await sql?.end({ timeout: 0 }).catch(() => {});
  }
}

/**
 * The newest first of `/usr/lib/postgresql/VERSION/bin`, where Debian keeps
 * PostgreSQL's server binaries, off `PATH`.
 */
export function postgresBinFolders(): string[] {
  try {
    return [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => entry.name)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => `/usr/lib/postgresql/${version}/bin`);
  } catch {
    return [];
  }
}

/** PostgreSQL, from `POSTGRES_URL` or a throwaway cluster. */
export const postgresService: ServiceDefinition = {
  name: "postgres",
  title: "PostgreSQL",
  urlEnv: "POSTGRES_URL",
  ports: { postgres: 5432, postgresql: 5432 },
  binaries: ["initdb", "postgres"],
  binaryFolders: postgresBinFolders,
  installHint: "apt-get install postgresql",
  fetcher: postgresFetcher,
  start: startPostgres,
  probe: probePostgres,
};
