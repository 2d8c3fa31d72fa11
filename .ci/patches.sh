#!/usr/bin/env bash
# Checks that each vendored crate under patches/ is the crate as published on
# crates.io plus its patch series, and nothing else.
#
# For each directory patches/series/NAME: the version is the one in
# patches/NAME/Cargo.toml; the published NAME-VERSION.crate comes from the
# registry through `cargo fetch` on a scratch manifest that depends on it
# without the root manifest's [patch.crates-io] (which keeps it out of the
# registry cache otherwise); it is unpacked in a temporary directory, the
# lines of patches/series/NAME/packaging are carried out, the patches listed
# in patches/series/NAME/series are applied in order (`git apply`, no fuzz),
# and the result must equal patches/NAME, except for patches/NAME/PATCHED.md
# (the note on the copy, kept out of the series so that editing it needs no
# new patch).
#
# Prints one line and exits 1 on the first difference, a patch that does not
# apply, or a registry that cannot be reached. `--keep DIR` leaves the
# published crates plus their series in DIR (to make or refresh a patch).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

keep=""
if [ "${1:-}" = "--keep" ]; then
  keep=${2:?"--keep needs a directory"}
fi

fail() {
  echo "patches: $*"
  if [ -n "$keep" ] && [ -d "${tmp:-}/published" ]; then
    mkdir -p "$keep"
    cp -r "$tmp/published/." "$keep/"
  fi
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

crates=()
for dir in patches/series/*/; do
  name=$(basename "$dir")
  [ -f "patches/$name/Cargo.toml" ] || fail "patches/series/$name has no vendored patches/$name"
  [ -f "patches/$name/PATCHED.md" ] || fail "patches/$name has no PATCHED.md"
  # The first `version = "..."` of the manifest is the package's own.
  version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "patches/$name/Cargo.toml" | head -n 1)
  [ -n "$version" ] || fail "no version in patches/$name/Cargo.toml"
  crates+=("$name=$version")
done
[ ${#crates[@]} -gt 0 ] || fail "no series under patches/series"

# The scratch manifest: the published crates, no [patch].
mkdir -p "$tmp/fetch/src"
: >"$tmp/fetch/src/lib.rs"
{
  printf '[package]\nname = "published-crates"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n'
  for crate in "${crates[@]}"; do
    printf '%s = "=%s"\n' "${crate%%=*}" "${crate#*=}"
  done
} >"$tmp/fetch/Cargo.toml"
# eval-dag's lock file as a start, so the dependencies resolve to the versions
# the build downloads anyway (the patched crates themselves resolve afresh).
cp Cargo.lock "$tmp/fetch/Cargo.lock"
host=$(rustc -vV | sed -n 's/^host: //p')
if ! (cd "$tmp/fetch" && cargo fetch --quiet --target "$host") >"$tmp/fetch.log" 2>&1; then
  fail "cannot fetch the published crates from the registry (no registry here?): $(grep -m 1 '^error' "$tmp/fetch.log" || true) ... $(grep -v '^ *$' "$tmp/fetch.log" | tail -n 1 | sed 's/^ *//')"
fi

cache="${CARGO_HOME:-$HOME/.cargo}/registry/cache"
for crate in "${crates[@]}"; do
  name=${crate%%=*}
  version=${crate#*=}
  series=patches/series/$name
  file=$(find "$cache" -name "$name-$version.crate" -print -quit 2>/dev/null || true)
  [ -n "$file" ] || fail "cargo fetch left no $name-$version.crate under $cache"
  mkdir -p "$tmp/published"
  tar -xzf "$file" -C "$tmp/published"
  tree=$tmp/published/$name-$version

  # packaging: `drop PATH` (a file or directory of the package the copy
  # leaves out) and `rename FROM TO`, each with its reason in a comment.
  while read -r action from to; do
    case "$action" in
      "" | "#"*) ;;
      drop) [ -e "$tree/$from" ] || fail "$series/packaging: $from is not in $name $version"
        rm -r "${tree:?}/$from" ;;
      rename) [ -e "$tree/$from" ] || fail "$series/packaging: $from is not in $name $version"
        mv "$tree/$from" "$tree/$to" ;;
      *) fail "$series/packaging: unknown line: $action $from $to" ;;
    esac
  done <"$series/packaging"

  listed=$(grep -v -e '^#' -e '^$' "$series/series" || true)
  present=$(cd "$series" && ls -- *.patch 2>/dev/null || true)
  [ "$(sort <<<"$listed")" = "$(sort <<<"$present")" ] ||
    fail "$series/series does not list exactly the .patch files beside it"
  for patch in $listed; do
    # GIT_CEILING_DIRECTORIES: `git apply` works on the unpacked tree alone,
    # even if the temporary directory lies inside a repository.
    if ! out=$(cd "$tree" && GIT_CEILING_DIRECTORIES="$tmp" git apply --whitespace=nowarn "$root/$series/$patch" 2>&1); then
      fail "$series/$patch does not apply to $name $version plus the patches before it: $(head -n 1 <<<"$out")"
    fi
  done

  differences=$(diff -rq "$tree" "patches/$name" | grep -v -x -F "Only in patches/$name: PATCHED.md" || true)
  if [ -n "$differences" ]; then
    count=$(wc -l <<<"$differences")
    first=$(head -n 1 <<<"$differences" | sed "s#$tree#$name-$version+series#g")
    fail "patches/$name is not $name $version plus $series ($count difference(s); first: $first; see: .ci/patches.sh --keep DIR, then diff -r DIR/$name-$version patches/$name)"
  fi
  echo "patches: patches/$name = $name $version as published + $(wc -w <<<"$listed") patch(es) of $series"
done

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  cp -r "$tmp/published/." "$keep/"
fi
