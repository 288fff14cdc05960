#!/usr/bin/env bash
# System tools some test envs compare against, from Debian's packages (needs root or sudo):
# tshark (decode tests compare our field decoding with Wireshark's) and Chromium (the report is
# rendered headless and its DOM checked). Does nothing when both are already installed.
set -euo pipefail
missing=()
command -v tshark >/dev/null || missing+=(tshark)
command -v chromium >/dev/null || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
