#!/usr/bin/env bash
# JWT signing/verification speed: pushlab (PushAuth over OpenSSL) against the raw OpenSSL
# ceiling (`openssl speed`) and PyJWT + cryptography, all on this machine in one run.
# Writes benchmarks/results/auth.md.
set -euo pipefail
export PUSHLAB_BENCH=1  # the pushlab-bench-* drivers exist only then (Package.swift)
cd "$(dirname "$0")/.."
SECONDS_PER_CASE=${SECONDS_PER_CASE:-1}
ROUNDS=${ROUNDS:-3}
OUT=benchmarks/results/auth.md
PY=.venv/bin/python

swift build -c release --product pushlab-bench-auth >/dev/null
BIN=.build/release/pushlab-bench-auth
[ -x "$PY" ] || { echo "auth.sh: no $PY (run scripts/bootstrap)" >&2; exit 1; }
source benchmarks/lib/scratch.sh TMP
# record, machine_lines, raw_table: every round's every number is written to the results file.
source benchmarks/lib/runs.sh

PYJWT_SCRIPT=$(cat <<'PYEOF'
import json, sys, time, jwt
from cryptography.hazmat.primitives import serialization
secs = float(sys.argv[1])
ec = serialization.load_pem_private_key(open("certs/AuthKey_PLDEVKEY01.p8", "rb").read(), None)
ec_pub = ec.public_key()
sa = json.load(open("certs/fcm-service-account.json"))
rsa = serialization.load_pem_private_key(sa["private_key"].encode(), None)
rsa_pub = rsa.public_key()
def rate(fn):
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(100): fn(n); n += 1
        el = time.perf_counter() - start
        if el >= secs: return n / el
tokens = [jwt.encode({"iss": "PLDEVTEAM1", "iat": 1767225600 + i}, ec, algorithm="ES256", headers={"kid": "PLDEVKEY01"}) for i in range(1000)]
rs = jwt.encode({"iss": sa["client_email"], "aud": sa["token_uri"], "scope": "s"}, rsa, algorithm="RS256", headers={"kid": sa["private_key_id"]})
opts = {"verify_iat": False, "verify_aud": False}
print("es256_sign_per_s", round(rate(lambda i: jwt.encode({"iss": "PLDEVTEAM1", "iat": i}, ec, algorithm="ES256", headers={"kid": "PLDEVKEY01"}))))
print("es256_parse_verify_per_s", round(rate(lambda i: jwt.decode(tokens[i % 1000], ec_pub, algorithms=["ES256"], options=opts))))
print("rs256_sign_per_s", round(rate(lambda i: jwt.encode({"iss": sa["client_email"], "iat": i}, rsa, algorithm="RS256"))))
print("rs256_parse_verify_per_s", round(rate(lambda i: jwt.decode(rs, rsa_pub, algorithms=["RS256"], options=opts))))
PYEOF
)

# The machine is shared, so the three contenders take turns, ROUNDS times, and each number
# reported is the median of its rounds: a burst of load hits all of them alike.
ALL_PUSHLAB="" ALL_PYJWT="" ALL_OSSL=""
for round in $(seq "$ROUNDS"); do
  echo "auth.sh: round $round/$ROUNDS"
  ALL_PUSHLAB+=$("$BIN" --seconds "$SECONDS_PER_CASE" --threads "$(nproc)")$'\n'
  ec=$(openssl speed -seconds "$SECONDS_PER_CASE" ecdsap256 2>/dev/null | awk '/nistp256/ { print $(NF-1), $NF }')
  rs=$(openssl speed -seconds "$SECONDS_PER_CASE" rsa2048 2>/dev/null | awk '/^rsa 2048/ { print $(NF-1), $NF }')
  ALL_OSSL+="es256_sign_per_s ${ec% *}"$'\n'"es256_parse_verify_per_s ${ec#* }"$'\n'
  ALL_OSSL+="rs256_sign_per_s ${rs% *}"$'\n'"rs256_parse_verify_per_s ${rs#* }"$'\n'
  ALL_PYJWT+=$("$PY" -c "$PYJWT_SCRIPT" "$SECONDS_PER_CASE")$'\n'
done
# Every raw number, by round: each block above holds ROUNDS lines per key, in round order.
for source in pushlab openssl pyjwt; do
  case $source in pushlab) all=$ALL_PUSHLAB ;; openssl) all=$ALL_OSSL ;; pyjwt) all=$ALL_PYJWT ;; esac
  declare -A seen=()
  while read -r key value; do
    [ -n "$key" ] || continue
    seen[$key]=$(( ${seen[$key]:-0} + 1 ))
    ROUND=${seen[$key]}
    record "$source $key" "$value"
  done <<<"$all"
  unset seen
done
median() { awk -v k="$1" '$1 == k { print $2 }' | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%d", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
get() { median "$1" <<<"$ALL_PUSHLAB"; }
ossl() { median "$1" <<<"$ALL_OSSL"; }
pyget() { median "$1" <<<"$ALL_PYJWT"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

THREADS_KEY=$(awk '$1 ~ /_threads_per_s$/ { print $1; exit }' <<<"$ALL_PUSHLAB")
{
  echo "# JWT sign/verify speed (PushAuth)"
  echo
  machine_lines
  echo "- tools: $(swift --version 2>&1 | head -1), $(openssl version), Python $("$PY" -c 'import sys; print(sys.version.split()[0])'), PyJWT $("$PY" -c 'import jwt; print(jwt.__version__)'), cryptography $("$PY" -c 'import cryptography; print(cryptography.__version__)')"
  echo "- commands: \`$BIN --seconds $SECONDS_PER_CASE --threads $(nproc)\`, \`openssl speed -seconds $SECONDS_PER_CASE ecdsap256\` and \`rsa2048\`, the PyJWT loop in benchmarks/auth.sh; $SECONDS_PER_CASE s per case, $ROUNDS interleaved rounds, medians reported"
  echo "- keys: certs/AuthKey_PLDEVKEY01.p8 (P-256), certs/fcm-service-account.json (RSA 2048)"
  echo
  echo "pushlab's numbers are whole JWT operations (JSON, base64url, DER↔r‖s conversion, the"
  echo "signature); \`openssl speed\` is the bare signature primitive, the ceiling."
  echo
  echo "| operation (1 thread, ops/s) | pushlab | PyJWT | openssl speed (primitive) | pushlab / PyJWT | pushlab / openssl |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  echo "| ES256 sign (provider token) | $(get es256_sign_per_s) | $(pyget es256_sign_per_s) | $(ossl es256_sign_per_s) | $(ratio "$(get es256_sign_per_s)" "$(pyget es256_sign_per_s)") | $(ratio "$(get es256_sign_per_s)" "$(ossl es256_sign_per_s)") |"
  echo "| ES256 parse + verify | $(get es256_parse_verify_per_s) | $(pyget es256_parse_verify_per_s) | $(ossl es256_parse_verify_per_s) | $(ratio "$(get es256_parse_verify_per_s)" "$(pyget es256_parse_verify_per_s)") | $(ratio "$(get es256_parse_verify_per_s)" "$(ossl es256_parse_verify_per_s)") |"
  echo "| RS256 sign (OAuth assertion) | $(get rs256_sign_per_s) | $(pyget rs256_sign_per_s) | $(ossl rs256_sign_per_s) | $(ratio "$(get rs256_sign_per_s)" "$(pyget rs256_sign_per_s)") | $(ratio "$(get rs256_sign_per_s)" "$(ossl rs256_sign_per_s)") |"
  echo "| RS256 parse + verify | $(get rs256_parse_verify_per_s) | $(pyget rs256_parse_verify_per_s) | $(ossl rs256_parse_verify_per_s) | $(ratio "$(get rs256_parse_verify_per_s)" "$(pyget rs256_parse_verify_per_s)") | $(ratio "$(get rs256_parse_verify_per_s)" "$(ossl rs256_parse_verify_per_s)") |"
  echo
  echo "- ES256 parse only (no signature check): $(get es256_parse_per_s) ops/s"
  echo "- ES256 parse + verify on $(nproc) threads sharing one PublicKey: $(get "$THREADS_KEY") ops/s"
  echo
  echo "## Every run"
  echo
  raw_table
} > "$OUT"
cat "$OUT"
