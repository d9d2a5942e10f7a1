/**
 * The fixed names and paths the check's image and its containers share:
 * the label that marks them, the Debian release, the user a command runs
 * as, its home, where the clone is mounted, the host's certificate bundle
 * and the `PATH` inside.
 *
 * @module
 */
import { DOCKER_LABEL } from "../system/docker.ts";

/** The label key on the check's image and containers. */
export const LABEL = DOCKER_LABEL;

/** The label value on the check's image and containers. */
export const LABEL_VALUE = "fresh-check";

/** The host's certificate bundle, mounted read-only at the same path. */
export const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/** Where the clone is mounted in the container, and its working folder. */
export const CONTAINER_PROJECT = "/src/fedify-queue-bench";

/** The container user's home: the cache folder's `home/` is mounted here. */
export const CONTAINER_HOME = "/home/fresh";

/**
 * The user the container runs as when the host runs the check as root: a
 * fresh machine's user is not root (PostgreSQL refuses to run as root, and
 * root's tests differ: network namespaces).
 */
export const CONTAINER_USER = { name: "fresh", uid: 1000, gid: 1000 };

/** The Debian release of the image. */
export const SUITE = "bookworm";

/** The PATH inside the container (the image's `ENV PATH`). */
export const CONTAINER_PATH =
  "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
