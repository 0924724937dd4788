// deltacheck driver protocol v1 (JSON lines on stdin/stdout), shared by every Node driver.
//
// A driver module calls `serve(implementation)` with
//   { name, library, version, protocols, capabilities, code_path, run(request) -> canonical result }
// `run` may throw: the exception becomes an `errored` reply carrying its stack. It may also return
// `{skipped: reason}` through `skip(reason)`. Replies are written one line each and flushed before
// the next request is read. stdout carries protocol lines only: console.log and friends go to stderr.

import readline from 'node:readline';
import { readFileSync } from 'node:fs';

// Libraries must never write to stdout: it is the protocol channel.
for (const method of ['log', 'info', 'debug', 'warn', 'trace', 'dir']) {
  console[method] = (...args) => console.error(...args);
}

// A promise the library rejects that nobody awaits must not kill the process (Node's default).
process.on('unhandledRejection', (reason) => {
  console.error('unhandled rejection (ignored):', reason?.stack ?? reason);
});

const SKIP = Symbol('skip');

export function skip(reason) {
  return { [SKIP]: true, reason };
}

/** The version field of an installed package, read from its own package.json. */
export function installedVersion(driverUrl, packageName) {
  const url = new URL(`./node_modules/${packageName}/package.json`, driverUrl);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

function write(obj) {
  const line = JSON.stringify(obj) + '\n';
  return new Promise((resolve, reject) => {
    process.stdout.write(line, (err) => (err ? reject(err) : resolve()));
  });
}

function describeError(err) {
  if (err instanceof Error) {
    let traceback = err.stack ?? String(err);
    let cause = err.cause;
    for (let depth = 0; cause && depth < 5; depth++) {
      traceback += `\nCaused by: ${cause instanceof Error ? cause.stack ?? cause.message : JSON.stringify(cause)}`;
      cause = cause instanceof Error ? cause.cause : undefined;
    }
    return { message: `${err.name ?? 'Error'}: ${err.message}`, traceback };
  }
  let text;
  try { text = JSON.stringify(err); } catch { text = String(err); }
  return { message: `non-Error thrown: ${text}`, traceback: '' };
}

export async function serve(impl) {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  for await (const raw of rl) {
    const line = raw.trim();
    if (!line) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      console.error(`driver: ignoring a line that is not JSON: ${line.slice(0, 200)}`);
      continue;
    }
    if (msg.cmd === 'start') {
      if (msg.version !== 1) {
        console.error(`driver: protocol version ${JSON.stringify(msg.version)} is not supported (only 1)`);
        process.exit(2);
      }
      await write({
        cmd: 'start', version: 1,
        implementation: {
          name: impl.name, library: impl.library, version: impl.version, language: 'node',
          protocols: [...impl.protocols].sort(), capabilities: [...impl.capabilities].sort(),
          code_path: impl.code_path,
        },
      });
    } else if (msg.cmd === 'run') {
      const seq = msg.seq;
      const request = msg.request ?? {};
      let reply;
      if (!impl.protocols.includes(request.protocol)) {
        reply = { seq, skipped: { reason: `${impl.name} does not speak ${request.protocol}` } };
      } else {
        try {
          const result = await impl.run(request);
          reply = result && result[SKIP] ? { seq, skipped: { reason: result.reason } } : { seq, result };
        } catch (err) {
          reply = { seq, errored: describeError(err) };
        }
      }
      await write(reply);
    } else if (msg.cmd === 'stop') {
      rl.close();
      process.exit(0);
    } else {
      console.error(`driver: ignoring unknown command ${JSON.stringify(msg.cmd)}`);
    }
  }
  process.exit(0);  // stdin closed
}
