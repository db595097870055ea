// redisson.mjs: a worker driving node-redisson (npm node-redisson 1.0.4),
// which speaks Redisson's lock protocol: a Hash per lock (field
// "<instance id>:<client id>" = hold count) set by hincrby + pexpire
// scripts, a watchdog renewing the lease every lockWatchdogTimeout/3, and
// an unlock message "0" published on redisson_lock__channel:{KEY}.
// A step {"do":"acquire","watchdog":true} takes the lock without a lease
// (the watchdog keeps it); plan.watchdog_ms sets lockWatchdogTimeout.
import Redisson from 'node-redisson';
import { performance } from 'node:perf_hooks';
import { readPlan, emitter, run, errorType, redisOptions } from './runner.mjs';

const plan = readPlan(process.argv);
const emit = emitter('redisson', plan);
const redisson = new Redisson.Redisson({
  redis: { options: redisOptions(plan) },
  lockWatchdogTimeout: BigInt(plan.watchdog_ms || 30000),
});
const lock = redisson.getLock(plan.key);
const owner = lock.getClientName(lock.clientId);

// The watchdog's renewals are the library's own calls; wrapping the
// client's script command reports each one without changing it.
const redis = redisson.redis;
// A lost connection (ioredis reconnects by itself) is reported, not fatal.
for (const c of [redis, redisson.commandExecutor.subscribeRedis]) {
  c.on('error', (e) => emit({ outcome: 'client_error', error: e.message, error_type: errorType(e) }));
}
const renew = redis.rRenewExpiration.bind(redis);
redis.rRenewExpiration = async (...args) => {
  const t0 = performance.now();
  try {
    const ok = await renew(...args);
    emit({ outcome: ok ? 'renewed' : 'renew_failed', owner, took_ms: performance.now() - t0 });
    return ok;
  } catch (e) {
    emit({ outcome: 'error', owner, error: e.message, error_type: errorType(e) });
    throw e;
  }
};

await run('redisson', {
  connect: () => redis.ping(),
  async acquire(step) {
    const ok = await lock.tryLock(step.wait_ms || 0, step.watchdog ? true : plan.lease_ms);
    return { outcome: ok ? 'acquired' : 'busy', owner };
  },
  async extend() {
    return { outcome: 'unsupported', error: 'worker: node-redisson has no extend; its watchdog renews' };
  },
  async release() {
    try {
      await lock.unlock();
      return { outcome: 'released', owner };
    } catch (e) {
      if (errorType(e) === 'RedissonLockError') return { outcome: 'not_owner', owner, error: e.message, error_type: errorType(e) };
      throw e;
    }
  },
  close: () => redisson.quit(),
}, plan, emit);
