"""One module per `memtui` subcommand, each exposing `register(subparsers, parents)`."""
