#!/bin/sh
# Seeds the fuzz corpus with every .m file under fixtures/ (run from anywhere).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/corpus/frontend"
find "$here/../fixtures" -name '*.m' | while read -r f; do
  name=$(printf '%s' "${f#"$here/../fixtures/"}" | tr '/' '_')
  cp "$f" "$here/corpus/frontend/$name"
done
echo "seeded $(ls "$here/corpus/frontend" | wc -l) files into $here/corpus/frontend"
