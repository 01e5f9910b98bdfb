"""Embedding providers: the interface, provider identity, and (per module) each provider."""
