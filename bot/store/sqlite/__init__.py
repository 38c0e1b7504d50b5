"""The SQLite store: the games of one process in a file on this host (:mod:`.store`),
its schema, its disk, its deadlines and the finished games kept for good."""
