#!/usr/bin/env bash
# Regenerates pushlab's DEV-ONLY keys and certificates. Never use them for anything real:
# the private keys are committed on purpose so tests need no generation step.
set -euo pipefail
cd "$(dirname "$0")"
KEY_ID=PLDEVKEY01     # 10 characters, like Apple's key ids
TEAM_ID=PLDEVTEAM1    # 10 characters, like Apple's team ids
BUNDLE_ID=io.pushlab.demo
PROJECT_ID=pushlab-dev

# Local CA and a localhost server certificate signed by it.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
  -subj "/CN=pushlab dev CA (DEV ONLY)" -keyout ca.key -out ca.pem \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
  -keyout server.key -out server.csr 2>/dev/null
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 -out server.pem \
  -extfile <(printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n') 2>/dev/null
rm -f server.csr ca.srl

# A certificate signed by nobody we trust, for "TLS verification fails" tests.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -subj "/CN=localhost" \
  -keyout untrusted.key -out untrusted.pem -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null

# APNs token-auth key: P-256 in PKCS#8 PEM, named like Apple's download.
rm -f AuthKey_*.p8
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "AuthKey_${KEY_ID}.p8"
openssl pkey -in "AuthKey_${KEY_ID}.p8" -pubout -out "AuthKey_${KEY_ID}.pub.pem"
cat > apns-key.json <<JSON
{
  "_comment": "DEV ONLY - pushlab test key, never for real use",
  "key_id": "${KEY_ID}",
  "team_id": "${TEAM_ID}",
  "key_file": "AuthKey_${KEY_ID}.p8",
  "public_key_file": "AuthKey_${KEY_ID}.pub.pem",
  "bundle_id": "${BUNDLE_ID}"
}
JSON

# FCM service account: RSA 2048 PKCS#8, token_uri at the local emulator's default port.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out fcm-sa.key 2>/dev/null
openssl pkey -in fcm-sa.key -pubout -out fcm-service-account.pub.pem
python3 - "$PROJECT_ID" <<'PY'
import json, sys, hashlib
project = sys.argv[1]
key = open("fcm-sa.key").read()
kid = hashlib.sha1(key.encode()).hexdigest()
sa = {
  "type": "service_account",
  "project_id": project,
  "private_key_id": kid,
  "private_key": key,
  "client_email": f"pushlab-dev@{project}.iam.gserviceaccount.com",
  "client_id": "100000000000000000001",
  "auth_uri": "https://accounts.google.com/o/oauth2/auth",
  "token_uri": "https://localhost:8443/token",
  "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
  "client_x509_cert_url": f"https://www.googleapis.com/robot/v1/metadata/x509/pushlab-dev%40{project}.iam.gserviceaccount.com",
  "universe_domain": "googleapis.com",
}
json.dump(sa, open("fcm-service-account.json", "w"), indent=2)
PY
rm -f fcm-sa.key

# APNs-style TLS client certificates (certificate authentication), signed by the dev CA.
../.venv/bin/python generate-apns-client.py
chmod 600 ./*.key ./*.p8 ./*.p12 fcm-service-account.json
echo "dev certificates written to $(pwd) (DEV ONLY)"
