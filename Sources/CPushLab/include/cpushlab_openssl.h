// OpenSSL: headers, plus wrappers for function-like macros Swift cannot import.
#ifndef CPUSHLAB_OPENSSL_H
#define CPUSHLAB_OPENSSL_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/// BIO_get_mem_data is a macro.
long cpl_bio_get_mem_data(BIO *bio, char **data);

#endif
