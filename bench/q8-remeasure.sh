#!/bin/bash
# Issue 19 items 5 and 6 with INT8 weights (session q8): bench/e1-remeasure.sh
# BASE NEW, which says what it measures, what data it needs (and builds
# /tmp/hb50's index when missing) and how long it runs (about 15 minutes on
# a quiet machine with /tmp/hb50 present).
#
#   bench/q8-remeasure.sh 1df441c HEAD   # the first round (before INT8 existed)
#   bench/q8-remeasure.sh 28a0aac HEAD   # the second (default): memory by stage,
#                                        # the graph-cache sync, hybridbench -int8 and its 1M lane
set -eu
exec "$(dirname "$0")/e1-remeasure.sh" "${1:-28a0aac}" "${2:-HEAD}"
