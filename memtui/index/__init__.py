"""The index: workspace listing, chunking, the SQLite store, the indexer, the watcher and session transcripts."""
