"""A worker driving redis-py's Lock (Debian's python3-redis) through a plan.

Run with /usr/bin/python3 (Debian's interpreter, which sees python3-redis):

    /usr/bin/python3 redispy_worker.py PLAN_JSON

The plan and the events are those of package internal/realclients (plan.go):
one JSON event per line on stdout, one line read on stdin per "await" step.
"""

import json
import sys
import time

import redis
from redis.exceptions import LockError, LockNotOwnedError

STEPS = {"acquire", "hold", "extend", "release", "await"}
START = time.monotonic()


def read_plan(argv):
    """Parse and check the plan in argv[1]; raise ValueError naming the field."""
    if len(argv) < 2:
        raise ValueError("usage: redispy_worker.py PLAN_JSON")
    plan = json.loads(argv[1])
    for field in ("addr", "key", "name"):
        if not isinstance(plan.get(field), str) or not plan[field]:
            raise ValueError("plan: %s must be a non-empty string" % field)
    lease = plan.get("lease_ms")
    if not isinstance(lease, int) or lease <= 0:
        raise ValueError("plan: lease_ms must be a positive integer")
    for i, step in enumerate(plan.get("steps") or []):
        if step.get("do") not in STEPS:
            raise ValueError("plan: steps[%d].do: unknown action %r" % (i, step.get("do")))
    host, _, port = plan["addr"].rpartition(":")
    plan["host"], plan["port"] = host.strip("[]"), int(port)
    return plan


def emitter(plan):
    def emit(**fields):
        ev = {"lib": "redis-py", "name": plan["name"], "step": -1}
        ev.update(fields)
        ev["at_ms"] = round((time.monotonic() - START) * 1000, 3)
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()

    return emit


def failure(outcome, err):
    return {"outcome": outcome, "error": str(err), "error_type": type(err).__name__}


def watch_release(client, key, token):
    """Release by check-and-delete in a transaction (WATCH, GET, MULTI, DEL,
    EXEC), as Redis's documentation wrote it before scripts; return the
    event's fields."""
    with client.pipeline(transaction=True) as pipe:
        try:
            pipe.watch(key)
            if token is None or pipe.get(key) != token:
                pipe.unwatch()
                return {"outcome": "not_owner", "error": "the key does not hold this lock's token",
                        "error_type": "TokenMismatch"}
            pipe.multi()
            pipe.delete(key)
            pipe.execute()
            return {"outcome": "released"}
        except redis.WatchError as err:
            return failure("not_owner", err)


def main():
    plan = read_plan(sys.argv)
    emit = emitter(plan)
    lease_s = plan["lease_ms"] / 1000.0
    t0 = time.monotonic()
    try:
        client = redis.Redis(host=plan["host"], port=plan["port"], client_name=plan["name"],
                             socket_timeout=30, socket_connect_timeout=5)
        client.ping()
    except redis.RedisError as err:
        emit(**failure("error", err))
        emit(outcome="done")
        return 2
    emit(outcome="ready", took_ms=round((time.monotonic() - t0) * 1000, 3))
    # thread_local=False: the token belongs to the lock object, as the
    # worker has one thread anyway.
    lock = client.lock(plan["key"], timeout=lease_s, sleep=0.05, thread_local=False)
    for i, step in enumerate(plan["steps"]):
        action = step["do"]
        t0 = time.monotonic()
        try:
            if action == "hold":
                time.sleep(step.get("ms", 0) / 1000.0)
                res = {"outcome": "held"}
            elif action == "await":
                emit(step=i, do=action, outcome="awaiting")
                t0 = time.monotonic()
                sys.stdin.readline()
                res = {"outcome": "continued"}
            elif action == "acquire":
                wait = step.get("wait_ms", 0)
                ok = lock.acquire(blocking=wait > 0, blocking_timeout=wait / 1000.0 if wait else None)
                res = {"outcome": "acquired" if ok else "busy"}
                if ok:
                    res["owner"] = lock.local.token.decode()
            elif action == "extend":
                token = lock.local.token
                try:
                    lock.extend(lease_s, replace_ttl=True)
                    res = {"outcome": "extended", "owner": token.decode()}
                except LockNotOwnedError as err:
                    res = failure("lock_lost", err)
            elif step.get("watch"):  # release by a WATCH transaction
                token = lock.local.token
                res = watch_release(client, plan["key"], token)
                if res["outcome"] == "released":
                    lock.local.token = None
            else:  # release
                token = lock.local.token
                try:
                    lock.release()
                    res = {"outcome": "released"}
                except LockNotOwnedError as err:
                    res = failure("not_owner", err)
                if token is not None:
                    res["owner"] = token.decode()
        except (LockError, redis.RedisError) as err:
            res = failure("error", err)
        emit(step=i, do=action, took_ms=round((time.monotonic() - t0) * 1000, 3), **res)
    emit(outcome="done")
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
