#!/usr/bin/env node
// The `moomem` bin: runs one command on the process's arguments and streams, then exits with its status.

import { processIo, systemErrorCode } from "./io.ts";
import { runCli } from "./run.ts";

let stdoutFailed = false;
// A reader that stops early (`moomem export | head`) closes the pipe: the commands treat that as done, not as a crash.
process.stdout.on("error", (error: unknown) => {
  if (systemErrorCode(error) === "EPIPE") return;
  stdoutFailed = true;
  process.stderr.write(`moomem: IO_FAILURE: cannot write to stdout: ${String(error)}\n`);
});

const status = await runCli(process.argv.slice(2), processIo());
process.exitCode = stdoutFailed && status === 0 ? 1 : status;
