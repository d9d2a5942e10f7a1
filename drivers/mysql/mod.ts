/**
 * MySQL (`@fedify/mysql`) on MariaDB: the driver, the poll ablation, and
 * the throwaway server (`MYSQL_URL` when given).
 *
 * @module
 */
export { mysqlDriver } from "./mysql.ts";
export { mysqlPoll200msDriver } from "./mysql_poll200ms.ts";
export {
  mariadbService,
  probeMariadb,
  startMariadb,
} from "./mariadb_server.ts";
