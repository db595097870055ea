package proxy

import "testing"

// TestScriptShapesOfLoopsOverKeys: node-redlock 4's scripts call Redis on
// a variable bound by a loop over KEYS, never on KEYS[1]: its lock script
// (EXISTS guard, then SET PX) reads as an acquire, its unlock (DEL) as a
// release, its extend (SET PX with no guard) as a renewal.
func TestScriptShapesOfLoopsOverKeys(t *testing.T) {
	lock := `
	for i, key in ipairs(KEYS) do
		if redis.call("exists", key) == 1 then
			return 0
		end
	end
	for i, key in ipairs(KEYS) do
		redis.call("set", key, ARGV[1], "PX", ARGV[2])
	end
	return #KEYS`
	unlock := `
	local count = 0
	for i, key in ipairs(KEYS) do
		if redis.call("get", key) == ARGV[1] then
			redis.pcall("del", key)
			count = count + 1
		end
	end
	return count`
	extend := `
	for i, key in ipairs(KEYS) do
		if redis.call("get", key) ~= ARGV[1] then
			return 0
		end
	end
	for i, key in ipairs(KEYS) do
		redis.call("set", key, ARGV[1], "PX", ARGV[2])
	end
	return #KEYS`
	for _, c := range []struct {
		name                    string
		body                    string
		acquire, release, renew bool
	}{
		{"lock", lock, true, false, false},
		{"unlock", unlock, false, true, false},
		{"extend", extend, false, false, true},
		// A variable that is not bound to KEYS names no key.
		{"other variable", `local key = ARGV[1]; redis.call("del", key)`, false, false, false},
	} {
		s := newScript(c.body)
		if s.Acquire != c.acquire || s.Release != c.release || s.Renew != c.renew {
			t.Errorf("%s: acquire %v release %v renew %v, want %v %v %v", c.name, s.Acquire, s.Release, s.Renew, c.acquire, c.release, c.renew)
		}
	}
}
