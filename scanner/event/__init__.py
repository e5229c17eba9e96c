"""The event record: SQLite store, registration and deck-check flows, audit and exports."""
