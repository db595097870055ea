package sim_test

// specExample is the example of shared/spec/lesson-format.md with the "..."
// texts filled in.
const specExample = `id: stale-owner                      # optional; default: file name without .yaml; [a-z0-9-]+
title: {en: "Lease expires under a paused owner", zh-CN: "租约过期后旧持有者恢复", zh-TW: "租約過期後舊持有者恢復"}
summary: {en: "A pauses past its lease.", zh-CN: "A 暂停超过了租约。", zh-TW: "A 暫停超過了租約。"}   # optional
source: 001_5402deabadbfda6d.txt     # optional: where the scenario comes from (a seed, a bug report)
variant: token-count                 # required: the lock algorithm, see "Variants"
lease: 30s                           # required: default lease of an acquire (Go duration, > 0)
fencing: true                        # optional, default false: outer acquires get fencing tokens
lock: order:42                       # optional, default "lock": the default lock name
actors:
  - id: A                            # [A-Za-z][A-Za-z0-9_-]*, unique
    name: {en: "Order request A", zh-CN: "订单请求 A", zh-TW: "訂單請求 A"}
    instance: svc-1                  # optional: the process it runs in (matters to instance-owner, redisson)
  - id: B
steps:
  - actor: A
    do: acquire
    expect: ACQUIRED
    say: {en: "A takes the lock: a fresh grant token, count 1, lease 30 s.", zh-CN: "A 拿到锁：新的授权令牌，计数 1，租约 30 秒。", zh-TW: "A 拿到鎖：新的授權令牌，計數 1，租約 30 秒。"}
  - actor: A
    do: pause                        # a stop-the-world pause: A runs nothing until resume
  - do: advance
    by: 31s
  - actor: B
    do: acquire
    expect: ACQUIRED
    expect_violation: overlapping-holders
  - actor: B
    do: write
    value: "shipped"
    expect: ACCEPTED
  - actor: A
    do: resume
  - actor: A
    do: write
    value: "paid"
    expect: REJECTED
  - actor: A
    do: release
    expect: NOT_OWNER
`
