# Sourced by the scripts beside it (issue 40's measurements): the repository root, a temp dir,
# the h2load bodies and credentials gateway.sh uses, and start_server BIN LOOPS LABEL, which
# starts `pushlab serve --bench` and sets PID_<LABEL>, H2C_<LABEL> (APNs h2c), TLS_<LABEL>
# (APNs TLS) and G_<LABEL> (Google host h2c: FCM, /bench).
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
T=$(mktemp -d)
SERVERS=()
trap 'for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
PY=.venv/bin/python
TOKEN=$(printf 'ab%.0s' $(seq 32))
TOKEN2=$(printf 'cd%.0s' $(seq 32))  # apns2: h2load alternates the two paths, so no request repeats the last one's
printf '%s' '{"aps":{"alert":{"title":"Benchmark","body":"A two-hundred-byte push body for the gateway benchmark run."},"sound":"default","badge":1},"CIO":{"push":{"link":"app://x"}}}' >"$T/body.json"
printf '%s' '{"message":{"token":"bench000001:APA91bXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-Q","notification":{"title":"Benchmark","body":"Hello from the benchmark"},"data":{"k":"v"}}}' >"$T/fcm.json"
JWT=$("$PY" -c 'import time,jwt;print(jwt.encode({"iss":"PLDEVTEAM1","iat":int(time.time())},open("certs/AuthKey_PLDEVKEY01.p8").read(),algorithm="ES256",headers={"kid":"PLDEVKEY01"}))')
TICK_US=$((1000000 / $(getconf CLK_TCK)))
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
access_token() {  # google-host-port → an access token from the gateway's POST /token (RS256 assertion by PyJWT)
  "$PY" - "http://127.0.0.1:$1/token" <<'PY'
import json, sys, time, urllib.parse, urllib.request, jwt
url = sys.argv[1]
sa = json.load(open("certs/fcm-service-account.json"))
now = int(time.time())
a = jwt.encode({"iss": sa["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging", "aud": url, "iat": now, "exp": now + 3600},
               sa["private_key"], algorithm="RS256", headers={"kid": sa["private_key_id"]})
form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": a}).encode()
print(json.load(urllib.request.urlopen(url, form))["access_token"])
PY
}
start_server() {  # BIN LOOPS LABEL
  local log=$T/$3.log
  : >"$log"
  "$1" serve --event-loops "$2" --port 0 --h2c-port 0 --apns-port 0 --apns-h2c-port 0 --quiet --bench >"$log" 2>&1 &
  local pid=$!; SERVERS+=("$pid")
  for _ in $(seq 200); do grep -q '^quick start' "$log" && break; sleep 0.05; done
  printf -v "PID_$3" '%s' "$pid"
  printf -v "H2C_$3" '%s' "$(sed -n 's|^APNs: http://127.0.0.1:\([0-9]*\).*|\1|p' "$log")"
  printf -v "TLS_$3" '%s' "$(sed -n 's|^APNs: https://127.0.0.1:\([0-9]*\).*|\1|p' "$log")"
  printf -v "G_$3" '%s' "$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$log")"
  printf -v "GTLS_$3" '%s' "$(sed -n 's|^https://127.0.0.1:\([0-9]*\) .*|\1|p' "$log")"
}
start_nghttpd() {  # nghttpd serving an empty file, as benchmarks/gateway.sh runs it: $1 workers, h2c and TLS → NG_H2C, NG_TLS (ports)
  source benchmarks/lib/listening.sh
  mkdir -p "$T/docroot" && : >"$T/docroot/empty"
  nghttpd -n "$1" --no-tls 0 -d "$T/docroot" >/dev/null 2>&1 &
  SERVERS+=("$!"); NG_H2C=$(port_of $!); PID_NG=$!
  nghttpd -n "$1" 0 certs/server.key certs/server.pem -d "$T/docroot" >/dev/null 2>&1 &
  SERVERS+=("$!"); NG_TLS=$(port_of $!); PID_NGTLS=$!
}
load() {  # KIND(apns|apns2|tls|raw|rawtls|fcm|rawfcm|ng|ngtls) LABEL N ACCESS_TOKEN → h2load's output in $T/h2load.out
  # (h2load -c CONNS, default 4: gateway.sh's command; pairs.sh runs CONNS=1)
  local h2c tls g gtls
  h2c=H2C_$2; tls=TLS_$2; g=G_$2; gtls=GTLS_$2
  case $1 in
    ng) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/body.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert" "http://127.0.0.1:$NG_H2C/empty";;
    ngtls) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/body.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert" "https://127.0.0.1:$NG_TLS/empty";;
    apns) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/body.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert" "http://127.0.0.1:${!h2c}/3/device/$TOKEN";;
    apns2) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/body.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert" "http://127.0.0.1:${!h2c}/3/device/$TOKEN" "http://127.0.0.1:${!h2c}/3/device/$TOKEN2";;
    tls) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/body.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert" "https://127.0.0.1:${!tls}/3/device/$TOKEN";;
    raw) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/body.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert" "http://127.0.0.1:${!g}/bench";;
    rawtls) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/body.json" -H "authorization: bearer $JWT" -H "apns-topic: io.pushlab.demo" -H "apns-push-type: alert" "https://127.0.0.1:${!gtls}/bench";;
    fcm) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/fcm.json" -H "authorization: Bearer $4" -H "content-type: application/json" "http://127.0.0.1:${!g}/v1/projects/pushlab-dev/messages:send";;
    rawfcm) h2load -n "$3" -c ${CONNS:-4} -m 100 -d "$T/fcm.json" -H "authorization: Bearer $4" -H "content-type: application/json" "http://127.0.0.1:${!g}/bench";;
  esac >"$T/h2load.out" 2>&1
}
