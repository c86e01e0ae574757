"""DEV ONLY: APNs-style client certificates for pushlab's certificate-auth tests and examples.

Run by generate.sh (or alone: ../.venv/bin/python generate-apns-client.py, from certs/). Makes:
  apns-client.pem/.key/.p12   both environments, topics io.pushlab.demo (+ .voip, .complication)
  apns-client-sandbox.pem/.key sandbox (development) only
  apns-client-expired.pem/.key expired yesterday
  apns-client-untrusted.pem/.key self-signed (no CA pushlab trusts)
Apple's push certificates carry these extensions (docs/specs/apns.md "Certificates"):
  1.2.840.113635.100.6.3.1 development, 1.2.840.113635.100.6.3.2 production,
  1.2.840.113635.100.6.3.6 topics: a SEQUENCE of UTF8String topics, each followed by a
  SEQUENCE naming its kind (app, voip, complication).
"""
import datetime
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID, ExtendedKeyUsageOID

BUNDLE = "io.pushlab.demo"
TEAM = "PLDEVTEAM1"
P12_PASSWORD = b"pushlab-dev"
DEVELOPMENT = x509.ObjectIdentifier("1.2.840.113635.100.6.3.1")
PRODUCTION = x509.ObjectIdentifier("1.2.840.113635.100.6.3.2")
TOPICS = x509.ObjectIdentifier("1.2.840.113635.100.6.3.6")


def der_length(n):
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def der(tag, body):
    return bytes([tag]) + der_length(len(body)) + body


def utf8(s):
    return der(0x0C, s.encode())


def topics_value(bundle):
    items = b""
    for topic, kind in [(bundle, "app"), (bundle + ".voip", "voip"), (bundle + ".complication", "complication")]:
        items += utf8(topic) + der(0x30, utf8(kind))
    return der(0x30, items)


NULL = b"\x05\x00"


def make(name, issuer_key, issuer_name, environments, not_after, self_signed=False):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([
        x509.NameAttribute(NameOID.USER_ID, BUNDLE),
        x509.NameAttribute(NameOID.COMMON_NAME, f"Apple Push Services: {BUNDLE} (DEV ONLY)"),
        x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, TEAM),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "pushlab dev"),
        x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
    ])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(subject if self_signed else issuer_name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(min(now - datetime.timedelta(days=2), not_after - datetime.timedelta(days=1)))
               .not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
    if "development" in environments:
        builder = builder.add_extension(x509.UnrecognizedExtension(DEVELOPMENT, NULL), critical=False)
    if "production" in environments:
        builder = builder.add_extension(x509.UnrecognizedExtension(PRODUCTION, NULL), critical=False)
    builder = builder.add_extension(x509.UnrecognizedExtension(TOPICS, topics_value(BUNDLE)), critical=False)
    cert = builder.sign(key if self_signed else issuer_key, hashes.SHA256())
    open(f"{name}.pem", "wb").write(cert.public_bytes(serialization.Encoding.PEM))
    open(f"{name}.key", "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption()))
    return key, cert


ca_key = serialization.load_pem_private_key(open("ca.key", "rb").read(), password=None)
ca_cert = x509.load_pem_x509_certificate(open("ca.pem", "rb").read())
far = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=3650)
key, cert = make("apns-client", ca_key, ca_cert.subject, ["development", "production"], far)
open("apns-client.p12", "wb").write(pkcs12.serialize_key_and_certificates(
    b"pushlab dev APNs client (DEV ONLY)", key, cert, [ca_cert],
    serialization.BestAvailableEncryption(P12_PASSWORD)))
make("apns-client-sandbox", ca_key, ca_cert.subject, ["development"], far)
make("apns-client-expired", ca_key, ca_cert.subject, ["development", "production"],
     datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1))
make("apns-client-untrusted", None, None, ["development", "production"], far, self_signed=True)
print("APNs client certificates written (DEV ONLY); .p12 password:", P12_PASSWORD.decode())
