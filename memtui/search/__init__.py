"""Search: the keyword/vector/hybrid engine, ranking arithmetic, FTS query building, the accelerator and why-not."""
