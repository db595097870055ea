package sim

// idempotentUnlock is token-count (seed 001) with a release that is safe to
// retry after a timeout: each unlock call carries an id, and Redis remembers
// the first answer to it for one lease, so a retried call gets that answer
// again instead of releasing twice.
type idempotentUnlock struct{ tokenCount }

const unlockCallsPrefix = "unlocks:"

func (idempotentUnlock) info() VariantInfo {
	in := tokenCount{}.info()
	in.Name, in.UnlockIDs = "idempotent-unlock", true
	in.Source = "001_5402deabadbfda6d.txt (with idempotent unlock calls)"
	in.Scripts = []*Script{mustScript("token-count/acquire"), mustScript("idempotent-unlock/release"), mustScript("resource/write"), mustScript("resource/write_fenced")}
	return in
}

func (idempotentUnlock) keys(lock string) []KeyRef {
	return []KeyRef{{Name: unlockCallsPrefix + lock, Type: TypeHash}}
}

func (idempotentUnlock) release(op lockOp, _ *grant) *Call {
	return &Call{Script: mustScript("idempotent-unlock/release"), Keys: []string{op.key, unlockCallsPrefix + op.lock},
		Args: []string{op.owner, op.unlockID, ms(op.leaseMS)}}
}
