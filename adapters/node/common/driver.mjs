// deltacheck driver protocol v1 (JSON lines on stdin/stdout), shared by every Node driver.
//
// A driver module calls `serve(implementation)` with
//   { name, library, version, protocols, capabilities, code_path, run(request) -> canonical result }
//   and optionally capability_notes: { capability: why the library (not the protocol) cannot express it }
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

// What a library invents (ids from crypto.randomUUID, Math.random, getRandomValues) is seeded per
// fixture, so the report stays reproducible byte for byte; the library still invents it.
function seedRandomness(fixtureId) {
  let state = 2166136261;
  for (const ch of `deltacheck:${fixtureId}`) state = Math.imul(state ^ ch.charCodeAt(0), 16777619) >>> 0;
  const next = () => {  // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  Math.random = next;
  globalThis.crypto.getRandomValues = (array) => {
    for (let i = 0; i < array.length; i++) array[i] = Math.floor(next() * 2 ** (8 * (array.BYTES_PER_ELEMENT ?? 1)));
    return array;
  };
  globalThis.crypto.randomUUID = () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
    hex[12] = '4';
    hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
    const h = hex.join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
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
          ...(impl.capability_notes ? { capability_notes: sortedNotes(impl.capability_notes) } : {}),
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
          seedRandomness(request.fixture ?? '');
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

function sortedNotes(notes) {
  return Object.fromEntries(Object.entries(notes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
