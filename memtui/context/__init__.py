"""Session context: token budgets and flush thresholds, flush prompts, bootstrap injection and startup context."""
