// Test support for a private PostgreSQL cluster.
