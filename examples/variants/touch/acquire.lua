-- touch: a non-reentrant lock in one String key whose value is the owner
-- id (a random value per acquire), set only while the key is absent.
-- KEYS[1]  the lock
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- Reply: OK when taken, nil when another owner's key is there.
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
