"""Search-quality evaluation: SciFact nDCG, LoCoMo evidence recall and a user's golden queries."""
