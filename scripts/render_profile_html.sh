#!/usr/bin/env bash
# render_profile_html.sh: look at `oomlint profile --format html` the way a user sees it. Renders
# the page in headless Chromium (Debian's `chromium`; installed with apt-get when missing) to a
# PNG, at a desktop and a narrow window width. Not part of CI.
#
#   scripts/render_profile_html.sh PAGE.html [OUT_PREFIX]
#
# Writes OUT_PREFIX-wide.png (1400 px) and OUT_PREFIX-narrow.png (800 px); OUT_PREFIX defaults
# to the page's path without `.html`.
set -euo pipefail
if [[ $# -lt 1 ]]; then
    echo "usage: scripts/render_profile_html.sh PAGE.html [OUT_PREFIX]" >&2
    exit 2
fi
page=$(realpath "$1")
prefix=${2:-${page%.html}}
if ! command -v chromium >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
for spec in wide:1400,2200 narrow:800,2600; do
    name=${spec%%:*}
    size=${spec#*:}
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="$size" --screenshot="$prefix-$name.png" "file://$page" 2>/dev/null
    echo "$prefix-$name.png"
done
