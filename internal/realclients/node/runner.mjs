// runner.mjs: the plan and event protocol shared by the Node workers
// (redlock.mjs, redisson.mjs); package internal/realclients (plan.go)
// documents it. A worker gets its plan as JSON in argv[2], writes one JSON
// event per line to stdout, and reads a line on stdin for each "await" step.
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';

const STEPS = new Set(['acquire', 'hold', 'extend', 'release', 'await']);

// readPlan parses and checks the plan in argv[2]; it throws an Error naming
// the field at fault.
export function readPlan(argv) {
  if (argv.length < 3) throw new Error('usage: node WORKER.mjs PLAN_JSON');
  const plan = JSON.parse(argv[2]);
  for (const f of ['addr', 'key', 'name']) {
    if (typeof plan[f] !== 'string' || plan[f] === '') throw new Error(`plan: ${f} must be a non-empty string`);
  }
  if (!Number.isInteger(plan.lease_ms) || plan.lease_ms <= 0) throw new Error('plan: lease_ms must be a positive integer');
  if (!Array.isArray(plan.steps)) throw new Error('plan: steps must be a list');
  plan.steps.forEach((s, i) => {
    if (!STEPS.has(s.do)) throw new Error(`plan: steps[${i}].do: unknown action ${JSON.stringify(s.do)}`);
  });
  const colon = plan.addr.lastIndexOf(':');
  plan.host = plan.addr.slice(0, colon).replace(/^\[|\]$/g, '');
  plan.port = Number(plan.addr.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(plan.port)) throw new Error(`plan: addr ${JSON.stringify(plan.addr)} is not HOST:PORT`);
  return plan;
}

// emitter returns emit(fields), which writes one event line with the
// worker's library and name and the time since the worker started.
export function emitter(lib, plan) {
  return (fields) => {
    const ev = { lib, name: plan.name, step: -1, ...fields, at_ms: round(performance.now()) };
    process.stdout.write(JSON.stringify(ev) + '\n');
  };
}

function round(ms) {
  return Math.round(ms * 1000) / 1000;
}

// lines returns next(), a promise of the next line on stdin ("" at its end).
function lines() {
  const queue = [];
  const waiting = [];
  let closed = false;
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (l) => (waiting.length ? waiting.shift()(l) : queue.push(l)));
  rl.on('close', () => {
    closed = true;
    while (waiting.length) waiting.shift()('');
  });
  return {
    next: () => (queue.length ? Promise.resolve(queue.shift()) : closed ? Promise.resolve('') : new Promise((r) => waiting.push(r))),
    close: () => rl.close(),
  };
}

// run connects the driver, runs the plan's steps in order and exits.
// A driver has connect(), acquire(step), extend(step), release(step) and
// close(); each step method returns {outcome, owner?, error?, error_type?}
// and throws only for failures it does not classify (reported as "error").
export async function run(lib, driver, plan, emit) {
  const input = lines();
  try {
    let t0 = performance.now();
    await driver.connect();
    emit({ outcome: 'ready', took_ms: round(performance.now() - t0) });
    for (const [i, step] of plan.steps.entries()) {
      t0 = performance.now();
      let res;
      try {
        if (step.do === 'hold') {
          await new Promise((r) => setTimeout(r, step.ms || 0));
          res = { outcome: 'held' };
        } else if (step.do === 'await') {
          emit({ step: i, do: step.do, outcome: 'awaiting' });
          t0 = performance.now();
          await input.next();
          res = { outcome: 'continued' };
        } else {
          res = await driver[step.do](step);
        }
      } catch (e) {
        res = { outcome: 'error', error: String(e && e.message ? e.message : e), error_type: errorType(e) };
      }
      emit({ step: i, do: step.do, ...res, took_ms: round(performance.now() - t0) });
    }
  } catch (e) {
    emit({ outcome: 'error', error: String(e && e.message ? e.message : e), error_type: errorType(e) });
    process.exitCode = 2;
  }
  emit({ outcome: 'done' });
  input.close();
  await Promise.race([driver.close().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
  // A watchdog timer or a reconnecting client would keep the process alive.
  process.exit();
}

// errorType names an error's class (the library's own: LockError,
// RedissonLockError, ReplyError, ...).
export function errorType(e) {
  return (e && (e.name !== 'Error' ? e.name : e.constructor && e.constructor.name)) || 'Error';
}

// redisOptions are ioredis's options for the plan: the connection named by
// CLIENT SETNAME, one retry per command, ready when PING answers.
export function redisOptions(plan) {
  return { host: plan.host, port: plan.port, connectionName: plan.name, maxRetriesPerRequest: 1, connectTimeout: 5000 };
}
