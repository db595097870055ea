package sim

import "testing"

// TestKeySlot checks KeySlot against slots Redis computes (CLUSTER KEYSLOT
// foo is 12182; CRC-16/XMODEM of "123456789" is 0x31C3) and the hash-tag
// rules of the Redis Cluster specification.
func TestKeySlot(t *testing.T) {
	t.Parallel()
	if got := KeySlot("foo"); got != 12182 {
		t.Errorf("KeySlot(foo) = %d, want 12182", got)
	}
	if got := KeySlot("123456789"); got != 0x31C3%ClusterSlots {
		t.Errorf("KeySlot(123456789) = %d, want %d", got, 0x31C3%ClusterSlots)
	}
	same := [][2]string{
		{"lock:{order:42}", "unlocks:{order:42}:u-1"}, // the tag alone is hashed
		{"{user1000}.following", "user1000"},
		{"foo{{bar}}zap", "{bar"},    // the tag ends at the first } after the first {
		{"foo{bar}{zap}", "bar"},     // only the first tag counts
		{"foo{}{bar}", "foo{}{bar}"}, // an empty tag: the whole key is hashed
		{"no{closing", "no{closing"}, // no }: the whole key
	}
	for _, p := range same {
		if KeySlot(p[0]) != KeySlot(p[1]) {
			t.Errorf("KeySlot(%q) = %d, KeySlot(%q) = %d: want one slot", p[0], KeySlot(p[0]), p[1], KeySlot(p[1]))
		}
	}
	if KeySlot("foo{}{bar}") == KeySlot("bar") {
		t.Error("an empty tag must not make the next {…} the tag")
	}
	if KeySlot("lock:order:42") == KeySlot("unlocks:order:42:u-791ccec3") {
		t.Error("untagged lock and latch keys share a slot; lesson 06a would not fail")
	}
}
