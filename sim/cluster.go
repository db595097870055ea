package sim

// A lesson with `cluster: true` (Lesson.Cluster) models the key rule of a
// Redis Cluster: every key of one command, one script call (its KEYS) or one
// MULTI/EXEC must hash to the same slot, or the node refuses the whole
// request with CROSSSLOT before anything runs (Redis Cluster specification,
// "Keys distribution model" and "Hash tags"). Lockstep runs every run's keys
// under one hash tag of its own, so a real Cluster could never show the
// error; the runner checks the application's key names (the logical ones the
// frames show) itself, the same way on every backend, and a refused request
// reaches no server.

// ClusterSlots is the number of hash slots of a Redis Cluster.
const ClusterSlots = 16384

// CrossSlotReply is the error a Redis Cluster node answers a request with
// when its keys hash to different slots (Redis's shared error crossslot).
const CrossSlotReply = "CROSSSLOT Keys in request don't hash to the same slot"

// KeySlot returns the Cluster hash slot of key: CRC16 (XMODEM) of the key,
// or of its hash tag (the text between the first "{" and the first "}"
// after it, when that text is not empty), modulo ClusterSlots.
func KeySlot(key string) int {
	for i := 0; i < len(key); i++ {
		if key[i] != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j > i+1 {
					key = key[i+1 : j]
				}
				return int(crc16(key)) % ClusterSlots
			}
		}
		break
	}
	return int(crc16(key)) % ClusterSlots
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0), the CRC the
// Redis Cluster specification names for key slots.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// crossSlot reports whether calls, sent as one request (one script call, or
// a script call and the fencing call in one MULTI/EXEC), name keys of more
// than one slot in a lesson with `cluster: true`; always false in any other.
func (r *Runner) crossSlot(calls ...*Call) bool {
	if !r.lesson.Cluster {
		return false
	}
	slot := -1
	for _, c := range calls {
		for _, k := range c.Keys {
			s := KeySlot(k)
			if slot >= 0 && s != slot {
				return true
			}
			slot = s
		}
	}
	return false
}

// refused records calls a Cluster node refused with CROSSSLOT: each with
// that error as its reply and the outcome CrossSlot.
func refused(calls ...*Call) []CallRecord {
	out := make([]CallRecord, len(calls))
	for i, c := range calls {
		out[i] = record(c, ErrorReply(CrossSlotReply), CrossSlot)
	}
	return out
}
