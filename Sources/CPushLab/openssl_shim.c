#define _DEFAULT_SOURCE  /* timegm */
#include <stdlib.h>
#include <time.h>
#include "cpushlab_openssl.h"

#include <string.h>

long cpl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

EVP_PKEY *cpl_private_key_from_der(const uint8_t *der, size_t len) {
    const unsigned char *p = der;
    EVP_PKEY *key = d2i_AutoPrivateKey(NULL, &p, (long)len);
    ERR_clear_error();
    return key;
}

EVP_PKEY *cpl_public_key_from_der(const uint8_t *der, size_t len) {
    const unsigned char *p = der;
    EVP_PKEY *key = d2i_PUBKEY(NULL, &p, (long)len);
    ERR_clear_error();
    return key;
}

int cpl_public_key_to_der(EVP_PKEY *key, uint8_t **out) {
    *out = NULL;
    int n = i2d_PUBKEY(key, out);
    ERR_clear_error();
    return n > 0 ? n : -1;
}

void cpl_free(void *p) { OPENSSL_free(p); }

cpl_key_kind cpl_key_kind_of(EVP_PKEY *key) {
    switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_EC: return CPL_KEY_EC;
    case EVP_PKEY_RSA: return CPL_KEY_RSA;
    default: return CPL_KEY_OTHER;
    }
}

void cpl_key_curve_name(EVP_PKEY *key, char *buf, size_t buf_len) {
    size_t written = 0;
    if (buf_len == 0) return;
    buf[0] = 0;
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC || !EVP_PKEY_get_group_name(key, buf, buf_len, &written)) {
        buf[0] = 0;
    }
    ERR_clear_error();
}

int cpl_key_bits(EVP_PKEY *key) { return EVP_PKEY_get_bits(key); }

EVP_PKEY *cpl_generate_p256(void) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    ERR_clear_error();
    return key;
}

EVP_PKEY *cpl_generate_rsa(unsigned int bits) {
    EVP_PKEY *key = EVP_RSA_gen(bits);
    ERR_clear_error();
    return key;
}

// One EVP_MD_CTX per call: the key itself is shared read-only between threads (allowed for
// OpenSSL 3 provider keys); the context is the mutable part.
int cpl_sign_sha256(EVP_PKEY *key, const uint8_t *data, size_t len, uint8_t *sig, size_t *sig_len) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL
        && EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestSign(ctx, sig, sig_len, data, len) == 1;
    EVP_MD_CTX_free(ctx);
    ERR_clear_error();
    return ok ? 1 : 0;
}

int cpl_verify_sha256(EVP_PKEY *key, const uint8_t *data, size_t len, const uint8_t *sig, size_t sig_len) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) return -1;
    int result = -1;
    if (EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, key) == 1) {
        int r = EVP_DigestVerify(ctx, sig, sig_len, data, len);
        result = r == 1 ? 1 : 0;
    }
    EVP_MD_CTX_free(ctx);
    ERR_clear_error();
    return result;
}

int cpl_ecdsa_der_to_raw(const uint8_t *der, size_t der_len, uint8_t *raw, size_t half) {
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
    if (sig == NULL) { ERR_clear_error(); return 0; }
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    int ok = BN_bn2binpad(r, raw, (int)half) == (int)half && BN_bn2binpad(s, raw + half, (int)half) == (int)half;
    ECDSA_SIG_free(sig);
    ERR_clear_error();
    return ok ? 1 : 0;
}

int cpl_ecdsa_raw_to_der(const uint8_t *raw, size_t half, uint8_t *der, size_t *der_len) {
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, (int)half, NULL);
    BIGNUM *s = BN_bin2bn(raw + half, (int)half, NULL);
    if (sig == NULL || r == NULL || s == NULL || !ECDSA_SIG_set0(sig, r, s)) {
        BN_free(r); BN_free(s); ECDSA_SIG_free(sig); ERR_clear_error();
        return 0;
    }
    int n = i2d_ECDSA_SIG(sig, NULL);
    int ok = 0;
    if (n > 0 && (size_t)n <= *der_len) {
        unsigned char *p = der;
        ok = i2d_ECDSA_SIG(sig, &p) == n;
        *der_len = (size_t)n;
    }
    ECDSA_SIG_free(sig);  // frees r and s too
    ERR_clear_error();
    return ok;
}

// ---- X.509 client certificates ----
#include <openssl/pkcs12.h>
#include <openssl/x509v3.h>
#include <openssl/objects.h>
#include <stdio.h>

static X509 *cpl_x509_from_der(const uint8_t *der, size_t len) {
    const unsigned char *p = der;
    return d2i_X509(NULL, &p, (long)len);
}

static long long cpl_asn1_time_to_unix(const ASN1_TIME *t) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
    return (long long)timegm(&tm);
}

int cpl_x509_read(const uint8_t *der, size_t len, cpl_x509_facts *facts) {
    X509 *cert = cpl_x509_from_der(der, len);
    if (!cert) return 0;
    memset(facts, 0, sizeof *facts);
    facts->not_before = cpl_asn1_time_to_unix(X509_get0_notBefore(cert));
    facts->not_after = cpl_asn1_time_to_unix(X509_get0_notAfter(cert));
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio) {
        char *data = NULL;
        X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
        long n = BIO_get_mem_data(bio, &data);
        snprintf(facts->subject, sizeof facts->subject, "%.*s", (int)n, data ? data : "");
        (void)BIO_reset(bio);
        X509_NAME_print_ex(bio, X509_get_issuer_name(cert), 0, XN_FLAG_RFC2253);
        n = BIO_get_mem_data(bio, &data);
        snprintf(facts->issuer, sizeof facts->issuer, "%.*s", (int)n, data ? data : "");
        BIO_free(bio);
    }
    X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_userId, facts->subject_uid, sizeof facts->subject_uid);
    X509_free(cert);
    return 1;
}

int cpl_x509_extension(const uint8_t *der, size_t len, const char *oid, uint8_t **out) {
    X509 *cert = cpl_x509_from_der(der, len);
    if (!cert) return -1;
    ASN1_OBJECT *object = OBJ_txt2obj(oid, 1);
    int result = 0;
    if (object) {
        int index = X509_get_ext_by_OBJ(cert, object, -1);
        if (index >= 0) {
            ASN1_OCTET_STRING *value = X509_EXTENSION_get_data(X509_get_ext(cert, index));
            int n = ASN1_STRING_length(value);
            *out = malloc(n > 0 ? (size_t)n : 1);
            if (*out) {
                memcpy(*out, ASN1_STRING_get0_data(value), (size_t)n);
                result = n > 0 ? n : 0;
            }
        }
        ASN1_OBJECT_free(object);
    }
    X509_free(cert);
    return result;
}

int cpl_x509_matches_key(const uint8_t *der, size_t len, EVP_PKEY *key) {
    X509 *cert = cpl_x509_from_der(der, len);
    if (!cert) return 0;
    int ok = X509_check_private_key(cert, key) == 1;
    X509_free(cert);
    ERR_clear_error();
    return ok;
}

cpl_p12_status cpl_pkcs12_open(const uint8_t *p12, size_t len, const char *password,
                               uint8_t **cert_der, int *cert_len, EVP_PKEY **key) {
    const unsigned char *p = p12;
    PKCS12 *bundle = d2i_PKCS12(NULL, &p, (long)len);
    if (!bundle) { ERR_clear_error(); return CPL_P12_NOT_PKCS12; }
    if (!PKCS12_verify_mac(bundle, password, -1)) {
        // An empty password may be stored as "no password" (NULL).
        if (!(password[0] == 0 && PKCS12_verify_mac(bundle, NULL, 0))) {
            PKCS12_free(bundle);
            ERR_clear_error();
            return CPL_P12_BAD_PASSWORD;
        }
    }
    X509 *cert = NULL;
    EVP_PKEY *pkey = NULL;
    STACK_OF(X509) *ca = NULL;
    int ok = PKCS12_parse(bundle, password, &pkey, &cert, &ca);
    PKCS12_free(bundle);
    if (ca) sk_X509_pop_free(ca, X509_free);
    if (!ok) { ERR_clear_error(); return CPL_P12_BAD_PASSWORD; }
    if (!cert) { EVP_PKEY_free(pkey); return CPL_P12_NO_CERTIFICATE; }
    if (!pkey) { X509_free(cert); return CPL_P12_NO_KEY; }
    *cert_der = NULL;
    *cert_len = i2d_X509(cert, cert_der);
    X509_free(cert);
    *key = pkey;
    return CPL_P12_OK;
}
