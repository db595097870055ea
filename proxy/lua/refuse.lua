-- refuse answers the error reply ARGV[1] (its code, "ERR", first): the
-- proxy sends it in place of a command it answers itself (a CLUSTER
-- command: clusterRefusal), so the reply comes in its place among the
-- replies of the client's other commands, on any upstream connection.
return redis.error_reply(ARGV[1])
