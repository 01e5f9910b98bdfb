"""Settings: the OpenClaw config (JSON5) parsed once into typed settings, state paths and the agent environment."""
