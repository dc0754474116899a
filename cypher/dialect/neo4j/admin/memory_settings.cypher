// mode: read
// params:
// returns: name, value
// dialect-only: yes
// why: the server's heap and page cache, recorded with benchmark results measured on it.
SHOW SETTINGS YIELD name, value
WHERE name IN ['server.memory.heap.initial_size', 'server.memory.heap.max_size',
               'server.memory.pagecache.size']
RETURN name AS name, value AS value
ORDER BY name
