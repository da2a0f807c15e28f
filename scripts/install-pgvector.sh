#!/usr/bin/env bash
# Installs the pgvector extension into the machine's PostgreSQL when it is missing, from Debian's own
# source package (the orig tarball in the Debian pool, checked against its pinned SHA-256). Debian
# bookworm ships no pgvector binary package for PostgreSQL 15, and the server headers come from
# Debian's postgresql-server-dev package, unpacked beside the build instead of installed (installing it
# would pull clang and LLVM for JIT bitcode, which the build turns off). Needs root (it writes into
# PostgreSQL's lib and share folders), gcc and make. Used by CI; hosts install pgvector their own way.
set -euo pipefail

PGVECTOR_VERSION=0.8.0
PGVECTOR_SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
PG_CONFIG="${PG_CONFIG:-$(command -v pg_config || true)}"
if [ -z "$PG_CONFIG" ]; then echo "install-pgvector: no pg_config on PATH" >&2; exit 1; fi

sharedir="$("$PG_CONFIG" --sharedir)"
if [ -f "$sharedir/extension/vector.control" ]; then
  echo "install-pgvector: already installed ($sharedir/extension/vector.control)"
  exit 0
fi
major="$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# the pool keeps a version while a Debian suite refers to it; the snapshot archive keeps it for good
tarball="pgvector_${PGVECTOR_VERSION}.orig.tar.gz"
for url in "http://deb.debian.org/debian/pool/main/p/pgvector/$tarball" \
  "http://snapshot.debian.org/archive/debian/20241102T000000Z/pool/main/p/pgvector/$tarball"; do
  if curl -fsSL --retry 3 --connect-timeout 20 --max-time 300 -o pgvector.tar.gz "$url"; then break; fi
done
echo "$PGVECTOR_SHA256  pgvector.tar.gz" | sha256sum -c --quiet -
tar xzf pgvector.tar.gz

# apt-get download checks the package against the signed archive index (as root it warns that the
# download is not sandboxed, which is expected here)
timeout 300 apt-get download -qq "postgresql-server-dev-$major" 2>&1 | grep -v "unsandboxed" || true
ls postgresql-server-dev-"$major"_*.deb >/dev/null
dpkg-deb -x postgresql-server-dev-"$major"_*.deb headers
server_headers="$work/headers/usr/include/postgresql/$major/server"

# OPTFLAGS="" builds for any x86-64 (pgvector defaults to -march=native); with_llvm=no skips JIT bitcode
make -C "pgvector-$PGVECTOR_VERSION" -j2 PG_CONFIG="$PG_CONFIG" OPTFLAGS="" with_llvm=no \
  includedir_server="$server_headers" install >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
echo "install-pgvector: pgvector $PGVECTOR_VERSION installed for PostgreSQL $major"
