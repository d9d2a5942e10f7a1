/**
 * A child for `lib/runtime/stdout.test.ts`: writes one message of the
 * length its argument names (bytes, then a newline) to stdout through the
 * runtime adapter, as the app's processes send their reports, and exits.
 *
 * @module
 */
import { appRuntime } from "../runtime/mod.ts";

// Listening on stdin as the app's processes do, for the bench's commands;
// on some runtimes that makes the pipes non-blocking.
const commands = appRuntime.stdin().getReader();
const length = Number(appRuntime.args[0]);
const bytes = new Uint8Array(length + 1).fill(0x78);
bytes[length] = 0x0a;
appRuntime.writeStdout(bytes);
await commands.cancel();
appRuntime.exit(0);
