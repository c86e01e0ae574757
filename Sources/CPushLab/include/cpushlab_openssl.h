// OpenSSL: headers, plus wrappers for function-like macros Swift cannot import and for the
// few key/signature operations PushAuth needs (kept in C so Swift never juggles the d2i/i2d
// pointer-advancing conventions).
#ifndef CPUSHLAB_OPENSSL_H
#define CPUSHLAB_OPENSSL_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/// BIO_get_mem_data is a macro.
long cpl_bio_get_mem_data(BIO *bio, char **data);

// ---- keys (PushAuth) ----

/// What kind of key an EVP_PKEY holds.
typedef enum {
    CPL_KEY_OTHER = 0,
    CPL_KEY_EC = 1,
    CPL_KEY_RSA = 2,
} cpl_key_kind;

/// A private key from DER (PKCS#8 PrivateKeyInfo, or a traditional SEC1/PKCS#1 key). NULL on failure.
EVP_PKEY *cpl_private_key_from_der(const uint8_t *der, size_t len);
/// A public key from DER SubjectPublicKeyInfo. NULL on failure.
EVP_PKEY *cpl_public_key_from_der(const uint8_t *der, size_t len);
/// The SubjectPublicKeyInfo DER of any key (private keys yield their public half).
/// Returns the length written to a malloc'd *out (free with cpl_free), or -1.
int cpl_public_key_to_der(EVP_PKEY *key, uint8_t **out);
void cpl_free(void *p);
cpl_key_kind cpl_key_kind_of(EVP_PKEY *key);
/// The curve's short name ("prime256v1", "secp384r1") into buf, or "" when not an EC key.
void cpl_key_curve_name(EVP_PKEY *key, char *buf, size_t buf_len);
int cpl_key_bits(EVP_PKEY *key);
/// Fresh keys (tests, the gateway emulator's unknown-key cases). NULL on failure.
EVP_PKEY *cpl_generate_p256(void);
EVP_PKEY *cpl_generate_rsa(unsigned int bits);

// ---- signatures (PushAuth) ----

/// Signs `data` with SHA-256 (ECDSA gives DER, RSA gives PKCS#1 v1.5). *sig_len is the buffer
/// size on entry and the signature length on return. 1 on success.
int cpl_sign_sha256(EVP_PKEY *key, const uint8_t *data, size_t len, uint8_t *sig, size_t *sig_len);
/// 1 when the signature verifies, 0 when it does not, -1 on an internal error.
int cpl_verify_sha256(EVP_PKEY *key, const uint8_t *data, size_t len, const uint8_t *sig, size_t sig_len);
/// DER ECDSA-Sig-Value -> JOSE raw r||s of 2*half bytes. 1 on success.
int cpl_ecdsa_der_to_raw(const uint8_t *der, size_t der_len, uint8_t *raw, size_t half);
/// JOSE raw r||s (2*half bytes) -> DER. *der_len is the buffer size on entry. 1 on success.
int cpl_ecdsa_raw_to_der(const uint8_t *raw, size_t half, uint8_t *der, size_t *der_len);


// ---- X.509 client certificates (PushAuth: APNs certificate authentication) ----

/// Facts read from a DER certificate. Times are seconds since 1970 (UTC).
typedef struct {
    long long not_before;
    long long not_after;
    char subject[512];      // RFC 2253 one-line form
    char subject_uid[256];  // the UID attribute (Apple puts the bundle id there), or ""
    char issuer[512];
} cpl_x509_facts;

/// Fills `facts` from a DER certificate. 1 on success, 0 when it is not a certificate.
int cpl_x509_read(const uint8_t *der, size_t len, cpl_x509_facts *facts);

/// The value (inside the OCTET STRING) of the extension `oid` ("1.2.3…"), malloc'd in *out
/// (free with cpl_free). Returns its length, 0 when absent, -1 when not a certificate.
int cpl_x509_extension(const uint8_t *der, size_t len, const char *oid, uint8_t **out);

/// 1 when `key` is the private half of the certificate's public key.
int cpl_x509_matches_key(const uint8_t *der, size_t len, EVP_PKEY *key);

/// Why a PKCS#12 file could not be opened.
typedef enum {
    CPL_P12_OK = 0,
    CPL_P12_NOT_PKCS12 = 1,
    CPL_P12_BAD_PASSWORD = 2,
    CPL_P12_NO_CERTIFICATE = 3,
    CPL_P12_NO_KEY = 4,
} cpl_p12_status;

/// Opens a PKCS#12 (.p12/.pfx) blob with `password` ("" for none): the leaf certificate as DER
/// and its private key (free both with cpl_free / EVP_PKEY_free).
cpl_p12_status cpl_pkcs12_open(const uint8_t *p12, size_t len, const char *password,
                               uint8_t **cert_der, int *cert_len, EVP_PKEY **key);

#endif
