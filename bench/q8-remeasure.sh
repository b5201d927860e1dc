#!/bin/bash
# Issue 19 items 5 and 6 with INT8 weights (session q8): bench/e1-remeasure.sh
# BASE NEW, which says what it measures, what data it needs (and builds
# /tmp/hb50's index when missing) and how long it runs (about 15 minutes on
# a quiet machine with /tmp/hb50 present).
#
#   bench/q8-remeasure.sh 1df441c HEAD
set -eu
exec "$(dirname "$0")/e1-remeasure.sh" "${1:-1df441c}" "${2:-HEAD}"
