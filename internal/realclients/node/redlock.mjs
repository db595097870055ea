// redlock.mjs: a worker driving node-redlock (npm redlock 4.2.0) on ioredis
// through a plan (runner.mjs). One Redis, so a quorum of one.
import Redis from 'ioredis';
import Redlock from 'redlock';
import { readPlan, emitter, run, errorType, redisOptions } from './runner.mjs';

const plan = readPlan(process.argv);
const emit = emitter('redlock', plan);
const client = new Redis(redisOptions(plan));
// A lost connection (ioredis reconnects by itself) is reported, not fatal.
client.on('error', (e) => emit({ outcome: 'client_error', error: e.message, error_type: errorType(e) }));
// retryCount 0: one attempt per acquire unless the step gives wait_ms.
const redlock = new Redlock([client], { retryCount: 0, retryDelay: 100, retryJitter: 0 });
redlock.on('clientError', (e) => emit({ outcome: 'client_error', error: e.message, error_type: errorType(e) }));
let lock = null;

const fail = (outcome, e) => ({ outcome, error: e.message, error_type: errorType(e) });

await run('redlock', {
  connect: () => client.ping(),
  async acquire(step) {
    const wait = step.wait_ms || 0;
    const opts = wait > 0 ? { retryCount: Math.ceil(wait / 100), retryDelay: 100 } : {};
    try {
      lock = await redlock.lockWithOptions(plan.key, plan.lease_ms, opts);
      return { outcome: 'acquired', owner: lock.value };
    } catch (e) {
      if (e instanceof Redlock.LockError) return fail('busy', e);
      throw e;
    }
  },
  async extend() {
    if (!lock) return { outcome: 'error', error: 'worker: extend before acquire' };
    try {
      lock = await lock.extend(plan.lease_ms);
      return { outcome: 'extended', owner: lock.value };
    } catch (e) {
      if (e instanceof Redlock.LockError) return fail('lock_lost', e);
      throw e;
    }
  },
  async release() {
    if (!lock) return { outcome: 'error', error: 'worker: release before acquire' };
    try {
      await lock.unlock();
      return { outcome: 'released', owner: lock.value };
    } catch (e) {
      if (e instanceof Redlock.LockError) return fail('not_owner', e);
      throw e;
    }
  },
  close: () => client.quit(),
}, plan, emit);
