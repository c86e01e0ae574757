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
