#include "cpushlab_openssl.h"

long cpl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
