#!/bin/sh
# Install the Debian packages ddbgen needs to build, test and benchmark.
# Idempotent: does nothing when everything is already installed.
set -eu
PKGS="build-essential cmake pkg-config clang libclang-dev libclang-rt-14-dev liblmdb-dev lmdb-utils
libjansson-dev libmicrohttpd-dev libxxhash-dev libcurl4-openssl-dev libssl-dev zlib1g-dev libisal-dev uuid-dev libcmocka-dev libsqlite3-dev python3 openssl
python3-botocore python3-boto3 awscli"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Node.js and npm run dynalite for the remote backend's tests.  A fresh
# Debian has neither: take Debian's nodejs and npm then.  Where a node is
# already there (NodeSource's nodejs bundles its own npm, which Debian's npm
# package would conflict with), leave it alone.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    missing="$missing nodejs npm"
fi
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
