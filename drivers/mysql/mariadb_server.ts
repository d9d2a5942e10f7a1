/**
 * MariaDB (or MySQL): probing a user-given server and starting throwaway
 * ones.
 *
 * @module
 */
import mysql from "mysql2/promise";
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
import { withTimeout } from "../../lib/system/sleep.ts";
import { findBinary } from "../../lib/services/binaries.ts";
import { unreachableError } from "../../lib/services/unreachable.ts";

/** How long `mariadb-install-db` plus the first connection may take. */
const START_TIMEOUT_MS = 30_000;
/** How long a restarted server may take to recover InnoDB after a crash. */
const RESTART_TIMEOUT_MS = 120_000;
/** How long `mariadbd` may take to exit after SIGTERM (clean shutdown). */
const STOP_GRACE_MS = 15_000;
/** The database throwaway servers create for the bench. */
const DATABASE = "fqb";

/** The first of `names` found on `PATH`, or else the first name. */
function binary(...names: string[]): string {
  for (const name of names) {
    const path = findBinary(name);
    if (path != null) return path;
  }
  return names[0];
}

/**
 * Starts a throwaway MariaDB server: `mariadb-install-db` into `dir/data`,
 * then `mariadbd` itself as a child process (not daemonized) listening on
 * `127.0.0.1:port`, with its socket and pid file in the data folder, and
 * `--no-defaults` so that no system configuration applies, and its own
 * temporary folder in `dir/tmp`.  Durability
 * settings keep their defaults (binary log off) so the numbers stay
 * realistic.  Output goes to `install.log` and `mariadbd.log` in `dir`.  When
 * running as root, the server drops to the `mysql` user (which owns the data
 * folder) and `dir` is opened for it to traverse.  The server can be killed
 * and restarted; a restart after a kill goes through InnoDB's crash
 * recovery.
 *
 * @param options The folder and port.
 * @returns The running server; its URL is
 *   `mysql://root@127.0.0.1:PORT/fqb` (no password).
 * @throws {Error} When the installation fails or the server does not accept
 *   connections within 30 seconds (with the log's last lines), or when
 *   `options.signal` aborts.
 */
export async function startMariadb(
  options: StartOptions,
): Promise<StartedServer> {
  const { dir, port, signal } = options;
  signal?.throwIfAborted();
  const deadline = Date.now() + START_TIMEOUT_MS;
  const asRoot = Deno.uid() === 0;
  const userArgs = asRoot ? ["--user=mysql"] : [];
  const dataDir = `${dir}/data`;
  // mariadb-install-db creates the data folder and gives it to the mysql
  // user; that user must be able to reach it.
  if (asRoot) await Deno.chmod(dir, 0o711);
  // A starting mariadbd deletes every `#sql*` file in its tmpdir: servers
  // sharing /tmp would delete each other's temporary tables (a bootstrap
  // then fails with "Unknown table 'mysql.tmp_user_sys'").  Each server gets
  // its own, writable by the mysql user as /tmp is.
  const tmpDir = `${dir}/tmp`;
  await Deno.mkdir(tmpDir);
  if (asRoot) await Deno.chmod(tmpDir, 0o1777);
  const serverArgs = [...userArgs, `--tmpdir=${tmpDir}`];

  // An abort sends the script SIGTERM, so it ends its bootstrap server; a
  // SIGKILL would orphan it.
  await runSetup(
    "mariadb-install-db",
    binary("mariadb-install-db", "mysql_install_db"),
    [
      "--no-defaults",
      ...serverArgs,
      `--datadir=${dataDir}`,
      "--auth-root-authentication-method=normal",
      "--skip-test-db",
    ],
    { logPath: `${dir}/install.log`, cwd: dir },
    signal,
  );

  signal?.throwIfAborted();
  const launch = (timeoutMs: number) =>
    launchMariadb({ ...options, dataDir, serverArgs, timeoutMs });
  return restartableServer(
    `mysql://root@127.0.0.1:${port}/${DATABASE}`,
    await launch(deadline - Date.now()),
    () => launch(RESTART_TIMEOUT_MS),
  );
}

/** Options for {@link launchMariadb}. */
interface LaunchOptions extends StartOptions {
  /** The installed data folder. */
  readonly dataDir: string;
  /** Its own `--tmpdir`, and `--user=mysql` when running as root. */
  readonly serverArgs: readonly string[];
  /** How long it may take to accept connections. */
  readonly timeoutMs: number;
}

/**
 * Spawns `mariadbd` on an installed data folder and waits until it accepts
 * connections (after crash recovery, if it needs one) and has the bench's
 * database; on failure, stops it and throws with the log's last lines.
 */
function launchMariadb(
  { dir, port, signal, dataDir, serverArgs, timeoutMs }: LaunchOptions,
): Promise<ServerProcess> {
  const rootUrl = `mysql://root@127.0.0.1:${port}`;
  return launchServer({
    name: "mariadbd",
    command: binary("mariadbd", "mysqld"),
    args: [
      "--no-defaults",
      ...serverArgs,
      `--datadir=${dataDir}`,
      `--port=${port}`,
      "--bind-address=127.0.0.1",
      `--socket=${dataDir}/mariadbd.sock`,
      `--pid-file=${dataDir}/mariadbd.pid`,
      "--skip-log-bin",
    ],
    spawn: { logPath: `${dir}/mariadbd.log`, cwd: dir },
    awaited: `no connection on port ${port}`,
    timeoutMs,
    intervalMs: 25,
    signal,
    stopGraceMs: STOP_GRACE_MS,
    probe: () =>
      query(rootUrl, 2000, `CREATE DATABASE IF NOT EXISTS ${DATABASE}`),
  });
}

/**
 * Connects to `url`, runs one statement, and disconnects.  Never waits
 * longer than `timeoutMs` in all; a connection made after that is closed at
 * once.  Errors are passed on as they are (they may hold the URL's
 * password).
 */
async function query(
  url: string,
  timeoutMs: number,
  sql: string,
): Promise<unknown[]> {
  let connection: mysql.Connection | undefined;
  let done = false;
  const work = (async () => {
    const opened = await mysql.createConnection({
      uri: url,
      connectTimeout: timeoutMs,
    });
    if (done) {
      opened.destroy();
      throw new Error("connected too late");
    }
    connection = opened;
    const [rows] = await opened.query(sql);
    return Array.isArray(rows) ? rows : [];
  })();
  try {
    return await withTimeout(
      work,
      timeoutMs,
      () => new Error(`no answer within ${timeoutMs} ms`),
    );
  } finally {
    done = true;
    connection?.destroy();
  }
}

/**
 * Connects to the MariaDB or MySQL server at `url` and returns its version.
 * Never waits much longer than `timeoutMs`; always closes the connection.
 *
 * @param url A `mysql://` URL.
 * @param timeoutMs The longest time to try.
 * @returns The server's `VERSION()`, for example
 *   `"10.11.19-MariaDB-0+deb12u1"`.
 * @throws {Error} Naming the URL (without password) and the cause.
 */
export async function probeMariadb(
  url: string,
  timeoutMs: number,
): Promise<{ version: string }> {
  try {
    const rows = await query(url, timeoutMs, "SELECT VERSION() AS version");
    const version = String(
      (rows[0] as { version?: unknown } | undefined)?.version ?? "",
    ).trim();
    if (!version) throw new Error("SELECT VERSION() returned nothing");
    return { version };
  } catch (error) {
    throw unreachableError("MariaDB", url, error);
  }
}

/** MariaDB (or MySQL), from `MYSQL_URL` or a throwaway `mariadbd`. */
export const mariadbService: ServiceDefinition = {
  name: "mariadb",
  title: "MariaDB",
  urlEnv: "MYSQL_URL",
  ports: { mysql: 3306, mariadb: 3306 },
  binaries: ["mariadb-install-db", "mariadbd"],
  installHint: "apt-get install mariadb-server",
  start: startMariadb,
  probe: probeMariadb,
};
