"""Engine adapters behind `graph.db.GraphDB`."""
